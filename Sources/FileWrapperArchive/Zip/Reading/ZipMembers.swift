import CCRC32

/// A zip member's data as the archive stores it: where it lies, how it
/// expands, and the CRC-32 of what it expands to, as the central directory
/// gives them.
struct ZipMember: Sendable, Equatable {
    /// Where the data begins, counted from the archive's start.
    var offset: Int64
    var compressedSize: Int
    var size: Int
    var crc: UInt32
    /// Stored or deflated, the methods expanded here.
    var method: ZipCompressionMethod
}

/// The members of a zip archive that an unpack inflates itself, from its
/// central directory: not encrypted, stored or deflated with both sizes at
/// most a limit, or deflated of any size. libarchive reads the same
/// directory but tells only an entry's expanded size and hands out only
/// expanded bytes, inflated by zlib; with this, an unpack finds where an
/// entry's stored bytes lie and lets a worker thread expand and check a
/// small one (``ZipMemberExpander``), so that inflating, a third of the
/// reading thread's time on many small files, runs on every core, and
/// inflates a large one streaming, both with ``RawInflater`` (ISA-L where
/// the build has it).
///
/// Every value is checked before use and anything unexpected (a directory
/// that does not parse, a member whose local header does not lead exactly
/// to the entry's data) gives nil, which leaves that entry to libarchive.
struct ZipDirectory {
    private struct Record {
        var localHeader: Int64
        var compressedSize: Int
        var size: Int
        var crc: UInt32
        var method: ZipCompressionMethod
    }

    private let source: ArchiveReadSource
    /// Sorted by the offset of the local header.
    private let records: [Record]
    /// Every entry the directory lists, kept or not, and the bytes they
    /// expand to: what an unpack's progress counts up to.
    let entryCount: Int
    let expandedBytes: Int64

    /// Reads the central directory of the zip that `source` holds
    /// (``ZipCentralDirectory``), keeping the members of at most `maxSize`
    /// bytes, stored and expanded, and the deflated ones of any size; nil
    /// when the directory cannot be found or read, or lists more than
    /// `maxEntries` entries.
    init?(source: ArchiveReadSource, maxEntries: Int, maxSize: Int) {
        guard let directory = try? ZipCentralDirectory(source: source) else { return nil }
        var entries = directory.records()
        var records: [Record] = []
        var expandedBytes: Int64 = 0
        do {
            while let entry = try entries.next() {
                guard entries.count <= maxEntries else { return nil }
                // What a hostile directory declares may not fit: the sum stops at the largest.
                let (sum, overflow) = expandedBytes.addingReportingOverflow(Int64(clamping: entry.size))
                expandedBytes = overflow ? .max : sum
                guard entry.fields.isWellFormed else { return nil }
                guard let method = ZipCompressionMethod(rawValue: entry.record.method), method == .stored || method == .deflated,
                      !entry.record.flags.isEncrypted, let localHeader = entry.localHeader,
                      (entry.size <= UInt64(maxSize) && entry.compressedSize <= UInt64(maxSize))
                        || (method == .deflated && entry.size <= UInt64(Int.max) && entry.compressedSize <= UInt64(Int.max)),
                      method == .deflated || entry.compressedSize == entry.size
                else { continue }
                records.append(Record(localHeader: localHeader, compressedSize: Int(entry.compressedSize), size: Int(entry.size),
                                      crc: entry.record.crc, method: method))
            }
        } catch {
            return nil
        }
        self.source = source
        entryCount = entries.count
        self.expandedBytes = expandedBytes
        // Writers put them in order; the sort (a merge sort) passes once over sorted ones.
        self.records = records.sorted { $0.localHeader < $1.localHeader }
    }

    /// The member whose data begins at `dataOffset` and expands to `size`
    /// bytes: the record with the nearest local header before it, when that
    /// header is there and ends exactly at `dataOffset`.
    func member(dataOffset: Int64, size: Int64) -> ZipMember? {
        var low = 0, high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].localHeader < dataOffset { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let record = records[low - 1]
        guard Int64(record.size) == size,
              let bytes = LittleEndianBytes(reading: source, at: record.localHeader, count: ZipLocalHeader.fixedLength),
              let header = ZipLocalHeader.prefix(decoding: bytes), header.method == record.method.rawValue, !header.isEncrypted,
              record.localHeader + Int64(header.length) == dataOffset
        else { return nil }
        return ZipMember(offset: dataOffset, compressedSize: record.compressedSize, size: record.size, crc: record.crc, method: record.method)
    }
}

/// Expands zip members' stored bytes on a worker thread and checks them as
/// libarchive would: the deflate stream must end exactly with the stored
/// bytes, give exactly the size the central directory gives, and have its
/// CRC-32. One inflate stream and one buffer of the largest size, reused.
final class ZipMemberExpander {
    /// What is wrong with a member's data, said for an error: `.corrupt`,
    /// or `.io` when the inflater could not allocate memory.
    struct Damage: Error {
        var code: ArchiveError.Code = .corrupt
        var message: String
    }

    private let inflater: RawInflater
    private let output: UnsafeMutableRawBufferPointer

    /// An expander for members of up to `capacity` bytes; nil when the
    /// inflater cannot be allocated.
    init?(capacity: Int) {
        guard let inflater = RawInflater() else { return nil }
        self.inflater = inflater
        output = .allocate(byteCount: max(capacity, 1), alignment: 16)
    }

    deinit {
        output.deallocate()
    }

    /// The contents of `member` from its stored bytes, valid until the next call.
    func contents(of member: ZipMember, stored: UnsafeRawBufferPointer) throws(Damage) -> UnsafeRawBufferPointer {
        let contents: UnsafeRawBufferPointer
        switch member.method {
        case .stored:
            contents = stored
        default:
            precondition(member.method == .deflated, "ZipDirectory keeps stored and deflated members only")
            precondition(member.size <= output.count)
            let target = UnsafeMutableRawBufferPointer(rebasing: output[..<member.size])
            switch inflater.expand(stored, into: target) {
            case .expanded(let count) where count == member.size:
                contents = UnsafeRawBufferPointer(target)
            case .expanded(let count):
                throw Damage(message: "the data expands to \(count) bytes, not the \(member.size) that the archive gives")
            case .tooLong:
                throw Damage(message: "the data expands to more than the \(member.size) bytes that the archive gives")
            case .cutShort:
                throw Damage(message: RawInflater.Failure.cutShort.message)
            case .endsEarly(let left):
                throw Damage(message: RawInflater.Failure.endsEarly(Int64(left)).message)
            case .damaged:
                throw Damage(message: RawInflater.Failure.damaged.message)
            case .outOfMemory:
                throw Damage(code: .io, message: RawInflater.Failure.outOfMemory.message)
            }
        }
        let crc = ccrc32_update(0, contents.baseAddress, contents.count)
        guard crc == member.crc else { throw Damage(message: Self.crcMismatch(crc, member.crc)) }
        return contents
    }

    /// The error's words for contents whose CRC-32 is `crc`, not the `expected` one the archive gives.
    static func crcMismatch(_ crc: UInt32, _ expected: UInt32) -> String {
        "the contents' CRC-32 is \(hex(crc)), the archive gives \(hex(expected))"
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
