import CCRC32
import CZlib
import Foundation
import Testing
import TestSupport

/// `ccrc32_update`, the CRC-32 every zip member read is checked with,
/// gives zlib's `crc32_z` for every length, alignment and starting value,
/// and carries on across pieces; on this machine, whose processor has
/// carry-less multiplication, it folds with it, so the comparison tests
/// the folding and not zlib against itself.
@Suite struct CRC32Tests {
    static func zlib(_ crc: UInt32, _ bytes: ArraySlice<UInt8>) -> UInt32 {
        UInt32(bytes.withUnsafeBytes { crc32_z(UInt(crc), $0.baseAddress?.assumingMemoryBound(to: Bytef.self), $0.count) })
    }

    static func ours(_ crc: UInt32, _ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { ccrc32_update(crc, $0.baseAddress, $0.count) }
    }

    @Test func foldsWhereTheProcessorCan() throws {
        let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        try #require(flags.contains(" pclmulqdq") && flags.contains(" sse4_1"), "this machine has no carry-less multiplication")
        #expect(ccrc32_is_accelerated())
    }

    @Test func everyLengthAlignmentAndStartGivesZlibsCRC() {
        var random = SplitMix64(seed: 32)
        let bytes = random.bytes(1 << 20)
        for count in 0..<300 {
            for offset in 0..<4 {
                let start = UInt32(truncatingIfNeeded: random.next())
                let piece = bytes[offset..<(offset + count)]
                #expect(Self.ours(start, piece) == Self.zlib(start, piece), "\(count) bytes at offset \(offset) from \(start)")
            }
        }
        #expect(Self.ours(0, bytes[...]) == Self.zlib(0, bytes[...]))
        #expect(Self.ours(0, bytes[...]) != Self.ours(0, bytes.dropLast()[...]))
    }

    @Test func piecesCarryOnAsOneInput() {
        var random = SplitMix64(seed: 33)
        let bytes = random.bytes(200_000)
        var crc: UInt32 = 0
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int(random.next() % 9_000))
            crc = Self.ours(crc, bytes[start..<end])
            start = end
        }
        #expect(crc == Self.zlib(0, bytes[...]))
    }
}
