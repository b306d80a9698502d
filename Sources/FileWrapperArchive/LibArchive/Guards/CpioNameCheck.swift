import Glibc

/// The names of cpio newc entries (magic `070701`, or `070702` with a CRC),
/// as GNU cpio and bsdtar write them. libarchive 3.6.2 reads a name whole,
/// however long its header declares it (up to 4 GiB), and it is copied
/// again into the entry, its UTF-8 form and the reader's path: about
/// ``copies`` times its size in all. (A 156 KB `.cpio.xz` whose header
/// declared a 1 GiB name took 5.2 GB, or ended the process when
/// allocation failed.) So a header that declares a name longer than the
/// memory limit divided by ``copies`` is refused.
///
/// Every header in the bytes is looked at, wherever it lies, as libarchive
/// recognises one (the magic and 104 more hexadecimal digits), since after
/// damage libarchive skips ahead to the next one it finds. The other cpio
/// variants declare names of at most 256 KiB, and libarchive refuses a
/// symlink target over 1 MiB.
final class CpioNameCheck: DeclaredSizeCheck {
    static let headerSize = 110
    /// How many times its length a name takes in memory, at most.
    static let copies: UInt64 = 8
    private static let magic = Array("07070".utf8)

    private let budget: MemoryBudget
    /// The last bytes looked at, too few for a header, and where they end.
    private var tail: [UInt8] = []
    private var tailEnd: Int64 = -1

    init(budget: MemoryBudget) {
        self.budget = budget
    }

    /// Whether an input that starts with `head` is a newc cpio to libarchive.
    static func isNewc(_ head: [UInt8]) -> Bool {
        head.count >= 6 && head.starts(with: magic) && (head[5] == UInt8(ascii: "1") || head[5] == UInt8(ascii: "2"))
    }

    func inspect(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> DeclaredSizeRefusal? {
        if offset != tailEnd { tail = [] }
        // A header that began in the bytes before and ends in these.
        if !tail.isEmpty {
            let joined = tail + bytes[..<min(bytes.count, Self.headerSize - 1)]
            let refusal = joined.withUnsafeBytes { scan($0, from: offset - Int64(tail.count), startingBefore: tail.count) }
            if let refusal { return refusal }
        }
        if let refusal = scan(bytes, from: offset, startingBefore: bytes.count) { return refusal }
        tail = Array((tail + bytes[max(0, bytes.count - (Self.headerSize - 1))...]).suffix(Self.headerSize - 1))
        tailEnd = offset + Int64(bytes.count)
        return nil
    }

    /// The refusal for the first whole header in `bytes` (which begin at
    /// `offset` in the input) that starts before `limit` and declares too
    /// long a name.
    private func scan(_ bytes: UnsafeRawBufferPointer, from offset: Int64, startingBefore limit: Int) -> DeclaredSizeRefusal? {
        var start = 0
        while start < limit, let at = bytes.firstIndex(of: Self.magic, from: start) {
            guard at < limit, at + Self.headerSize <= bytes.count else { return nil }
            start = at + 1
            let header = UnsafeRawBufferPointer(rebasing: bytes[at..<(at + Self.headerSize)])
            guard header[5] == UInt8(ascii: "1") || header[5] == UInt8(ascii: "2"),
                  let fields = Self.hexadecimal(header)
            else { continue }
            let nameSize = fields(94)
            guard !budget.allows(nameSize * Self.copies) else { continue }
            let error = budget.refusal("the cpio header at byte \(offset + Int64(at)) declares a name of \(nameSize) bytes, "
                                       + "which would take about \(nameSize * Self.copies) bytes of memory in the copies libarchive and this reader make")
            return DeclaredSizeRefusal(error: error, offset: offset + Int64(at))
        }
        return nil
    }

    /// The header's 8-digit field at an offset, when all of its bytes are
    /// hexadecimal digits, as libarchive requires of a header it reads.
    private static func hexadecimal(_ header: UnsafeRawBufferPointer) -> ((Int) -> UInt64)? {
        guard header.allSatisfy({ hexValue($0) != nil }) else { return nil }
        return { field in header[field..<(field + 8)].reduce(0) { $0 << 4 | UInt64(hexValue($1)!) } }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
