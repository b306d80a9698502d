import FileWrapperKit
import Glibc

/// The zip members that libarchive 3.6.2 decodes with memory their own
/// bytes declare: LZMA (method 14; liblzma with no limit, so a member that
/// declares a 3 GiB dictionary filled 313 MB decoding 300 MiB), xz (95;
/// every block, ``XZBlockCheck``), PPMd (98; a model of up to 256 MiB)
/// and zstd (93; the first frame's window, which zstd itself holds to 128
/// MiB). Each local header is looked at as it passes to libarchive, which
/// reads every member's (also a seekable zip's, at the offset its central
/// directory gives, and it decodes with the method the local header
/// names), before the properties at the start of the member's data.
/// Encrypted members are left alone: without a passphrase libarchive
/// decodes nothing.
final class ZipMethodCheck: DeclaredSizeCheck {
    private static let signature = withUnsafeBytes(of: ZipLocalHeader.signature.littleEndian, Array.init)

    /// A local header found, and its bytes (and the member data's first)
    /// gathered so far.
    private struct LocalHeader {
        var start: Int64
        var bytes: [UInt8]
    }

    private enum Verdict {
        case fine
        case needs(Int)
        case refused(ArchiveError)
        case xz(dataStart: Int64, member: String)
    }

    private let budget: MemoryBudget
    /// Where the input's first byte lies in the zip, for errors: 0 but for
    /// a member read alone (``ZipMemberStream``).
    private let archiveOffset: Int64
    /// The span of the input looked at since libarchive last sought
    /// outside it, and its last bytes, fewer than a signature.
    private var looked: Range<Int64> = 0..<0
    private var carry: [UInt8] = []
    private var waiting: [LocalHeader] = []
    private var streams: [XZBlockCheck] = []

    init(budget: MemoryBudget, archiveOffset: Int64 = 0) {
        self.budget = budget
        self.archiveOffset = archiveOffset
    }

    /// Whether libarchive may read `source` as a zip: it starts as one (a
    /// stream is read by its local headers), or it can seek and has a zip's
    /// end record in its last 64 KiB (a self-extracting zip starts with a
    /// program).
    static func mayBeZip(_ source: ArchiveReadSource) -> Bool {
        if source.head.starts(with: Array("PK".utf8)) { return true }
        guard let size = source.size, size >= 22 else { return false }
        let length = Int(min(size, 22 + 0xFFFF))
        var tail = [UInt8](repeating: 0, count: length)
        guard tail.withUnsafeMutableBytes({ source.copyBytes(at: size - Int64(length), into: $0) }) else { return false }
        return tail.withUnsafeBytes { $0.firstIndex(of: [0x50, 0x4B, 0x05, 0x06]) != nil }
    }

    func inspect(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> DeclaredSizeRefusal? {
        // A seekable zip is read a local header at a time, each from its own
        // offset: bytes looked at already (and found fine) are passed over.
        if !(looked.lowerBound...looked.upperBound).contains(offset) {
            // libarchive sought elsewhere: what was gathered is not read on.
            (looked, carry, waiting, streams) = (offset..<offset, [], [], [])
        }
        let end = offset + Int64(bytes.count)
        guard end > looked.upperBound else { return nil }
        let fresh = UnsafeRawBufferPointer(rebasing: bytes[Int(looked.upperBound - offset)...])
        let freshOffset = looked.upperBound
        looked = looked.lowerBound..<end
        return inspect(fresh: fresh, at: freshOffset)
    }

    /// Looks at `bytes`, the input's from `offset` on, which follow what was
    /// looked at before.
    private func inspect(fresh bytes: UnsafeRawBufferPointer, at offset: Int64) -> DeclaredSizeRefusal? {
        var found = waiting
        // Signatures that began in the bytes before.
        let joined = carry + bytes[..<min(bytes.count, Self.signature.count - 1)]
        for start in 0..<carry.count where joined[start...].starts(with: Self.signature) {
            found.append(LocalHeader(start: offset - Int64(carry.count - start), bytes: Array(carry[start...])))
        }
        var from = 0
        while let at = bytes.firstIndex(of: Self.signature, from: from) {
            found.append(LocalHeader(start: offset + Int64(at), bytes: []))
            from = at + 1
        }
        carry = Array((carry + bytes[max(0, bytes.count - (Self.signature.count - 1))...]).suffix(Self.signature.count - 1))
        waiting = []
        for var header in found {
            switch judge(&header, gathering: bytes, at: offset) {
            case .fine:
                break
            case .needs:
                waiting.append(header)
            case .refused(let error):
                return DeclaredSizeRefusal(error: error, offset: header.start)
            case .xz(let dataStart, let member):
                streams.append(XZBlockCheck(start: dataStart, member: member, budget: budget))
            }
        }
        for stream in streams {
            if let refusal = stream.inspect(bytes, at: offset) { return refusal }
        }
        streams.removeAll { $0.isDone }
        return nil
    }

    /// Gathers from `bytes` (the input's from `offset` on) what `header`
    /// needs, and judges it once it has it.
    private func judge(_ header: inout LocalHeader, gathering bytes: UnsafeRawBufferPointer, at offset: Int64) -> Verdict {
        while true {
            let verdict = Self.verdict(header.bytes, start: header.start, shownStart: archiveOffset + header.start, budget: budget)
            guard case .needs(let count) = verdict else { return verdict }
            let from = header.start + Int64(header.bytes.count) - offset
            guard from >= 0, from < bytes.count else { return verdict }
            let until = min(bytes.count, Int(from) + count - header.bytes.count)
            header.bytes += bytes[Int(from)..<until]
        }
    }

    /// What a local header's first bytes, `bytes`, call for; `shownStart`
    /// is where the header begins in the zip, for the error.
    private static func verdict(_ bytes: [UInt8], start: Int64, shownStart: Int64, budget: MemoryBudget) -> Verdict {
        guard bytes.count >= ZipLocalHeader.fixedLength else { return .needs(ZipLocalHeader.fixedLength) }
        guard let prefix = ZipLocalHeader.prefix(decoding: LittleEndianBytes(bytes: bytes)),
              !prefix.isEncrypted, let method = ZipCompressionMethod(rawValue: prefix.method), [.lzma, .zstd, .xz, .ppmd].contains(method)
        else { return .fine }
        let dataStart = prefix.length
        guard bytes.count >= dataStart, let header = ZipLocalHeader(decoding: LittleEndianBytes(bytes: bytes)) else { return .needs(dataStart) }
        let member = PathDisplay.text(header.name.prefix(200))
        func refusal(_ what: String, _ needed: UInt64) -> Verdict {
            .refused(budget.refusal("the zip member \"\(member)\" at byte \(shownStart) is compressed with \(what), which needs \(needed) bytes of memory to decode"))
        }
        switch method {
        case .lzma:
            // Two bytes of version, the properties' size (5) and the properties, as libarchive reads them.
            guard bytes.count >= dataStart + 9 else { return .needs(dataStart + 9) }
            guard bytes[dataStart + 2] == 5, bytes[dataStart + 3] == 0,
                  let needed = LZMAMemory.lzma(properties: bytes[(dataStart + 4)..<(dataStart + 9)]), !budget.allows(needed)
            else { return .fine }
            return refusal("LZMA", needed)
        case .ppmd:
            // Order, model size in MiB less one, and restoration method, as libarchive reads them.
            guard bytes.count >= dataStart + 2 else { return .needs(dataStart + 2) }
            let parameters = u16(bytes, dataStart)
            let needed = UInt64(((parameters >> 4) & 0xFF) + 1) << 20
            guard (parameters & 0x0F) >= 1, parameters >> 12 <= 2, !budget.allows(needed) else { return .fine }
            return refusal("PPMd", needed)
        case .zstd:
            switch ZstdFrameHeader.read(bytes[dataStart...]) {
            case .needs(let count): return .needs(dataStart + count)
            case .window(let window) where !budget.allows(window): return refusal("zstd", window)
            case .window, .none: return .fine
            }
        default:
            return .xz(dataStart: start + Int64(dataStart), member: member)
        }
    }

    private static func u16(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) | Int(bytes[at + 1]) << 8
    }
}
