import Testing
import TestSupport
@testable import FileWrapperKit

/// A signature built block by block is the one built from all the bytes at
/// once, wherever the blocks split: between a carriage return and its
/// newline, inside the first 8,000 bytes that tell text from binary.
@Suite("ContentSignature")
struct ContentSignatureTests {
    @Test(arguments: [false, true])
    func blocksGiveTheSignatureOfTheWhole(binary: Bool) {
        var random = SplitMix64(seed: binary ? 2 : 1)
        var bytes: [UInt8] = []
        while bytes.count < 20_000 {
            bytes += random.bytes(Int(random.next() % 90)).map { 0x20 + $0 % 0x5F } + [0x0D, 0x0A]
        }
        if binary { bytes[5_000] = 0 }
        let whole = ContentSignature(of: bytes)
        let returnAt = bytes.firstIndex(of: 0x0D)!
        for splits in [[returnAt + 1], [1, 7_999, 8_000, 8_001], Array(stride(from: 0, to: bytes.count, by: 4_096))] {
            var builder = ContentSignature.Builder()
            var start = 0
            for split in splits + [bytes.count] {
                builder.append(bytes[start..<split])
                start = split
            }
            #expect(builder.finish() == whole, "split at \(splits.prefix(4))")
        }
        // A carriage return before a newline is skipped in text (git's rule), not in binary.
        let lineFeedsOnly = ContentSignature(of: bytes.filter { $0 != 0x0D })
        #expect((whole.spans == lineFeedsOnly.spans) == !binary)
        #expect(whole.size == bytes.count)
    }
}
