import CZlib

/// A zip member's data as the archive stores it: where it lies, how it
/// expands, and the CRC-32 of what it expands to, as the central directory
/// gives them.
struct ZipMember: Sendable, Equatable {
    enum Method: UInt16, Sendable {
        case stored = 0, deflated = 8
    }

    /// Where the data begins, counted from the archive's start.
    var offset: Int64
    var compressedSize: Int
    var size: Int
    var crc: UInt32
    var method: Method
}

/// The small members of a zip archive, from its central directory: stored
/// or deflated, not encrypted, both sizes at most a limit. libarchive reads
/// the same directory but tells only an entry's expanded size and hands out
/// only expanded bytes; with this, an unpack finds where an entry's stored
/// bytes lie and lets a worker thread expand and check them
/// (``ZipMemberExpander``), so that inflating, a third of the reading
/// thread's time on many small files, runs on every core.
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
        var method: ZipMember.Method
    }

    private let source: ArchiveReadSource
    /// Sorted by the offset of the local header.
    private let records: [Record]
    /// Every entry the directory lists, kept or not, and the bytes they
    /// expand to: what an unpack's progress counts up to.
    let entryCount: Int
    let expandedBytes: Int64

    /// Reads the central directory of the zip that `source` holds, keeping
    /// the members of at most `maxSize` bytes, stored and expanded; nil when
    /// the directory cannot be found or read, or lists more than
    /// `maxEntries` entries.
    init?(source: ArchiveReadSource, maxEntries: Int, maxSize: Int) {
        guard let location = Self.locateDirectory(in: source), location.count <= maxEntries,
              let (records, expandedBytes) = Self.readRecords(source, location, maxSize: maxSize)
        else { return nil }
        self.source = source
        entryCount = location.count
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
        guard Int64(record.size) == size, let header = Self.read(source, at: record.localHeader, count: 30),
              header.u32(0) == 0x0403_4b50, header.u16(8) == record.method.rawValue, header.u16(6) & 1 == 0,
              record.localHeader + 30 + Int64(header.u16(26)) + Int64(header.u16(28)) == dataOffset
        else { return nil }
        return ZipMember(offset: dataOffset, compressedSize: record.compressedSize, size: record.size, crc: record.crc, method: record.method)
    }

    /// Where the central directory lies as the end record (and the zip64
    /// end record that it may point to) gives it, how many entries it
    /// lists, and where that end record itself begins.
    static func locateDirectory(in source: ArchiveReadSource) -> (offset: Int64, size: Int64, count: Int, end: Int64)? {
        guard let total = source.size, total >= 22 else { return nil }
        // The end record is 22 bytes and a comment of up to 65,535.
        let tailLength = Int(min(total, 22 + 0xFFFF))
        let tailStart = total - Int64(tailLength)
        guard let tail = read(source, at: tailStart, count: tailLength) else { return nil }
        var at = tailLength - 22
        while at >= 0, tail.u32(at) != 0x0605_4b50 { at -= 1 }
        guard at >= 0, tail.u16(at + 4) == 0, tail.u16(at + 6) == 0, tail.u16(at + 8) == tail.u16(at + 10) else { return nil }
        let (count, size, offset) = (tail.u16(at + 10), tail.u32(at + 12), tail.u32(at + 16))
        guard count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF else {
            return (Int64(offset), Int64(size), Int(count), tailStart + Int64(at))
        }
        // Zip64: a locator just before the end record gives the zip64 end record's offset.
        guard at >= 20, tail.u32(at - 20) == 0x0706_4b50,
              let end64 = read(source, at: Int64(clamping: tail.u64(at - 12)), count: 56), end64.u32(0) == 0x0606_4b50,
              end64.u64(32) <= UInt64(Int.max), end64.u64(40) <= UInt64(Int64.max), end64.u64(48) <= UInt64(Int64.max)
        else { return nil }
        return (Int64(end64.u64(48)), Int64(end64.u64(40)), Int(end64.u64(32)), Int64(clamping: tail.u64(at - 12)))
    }

    /// The records of the members worth keeping, read through the directory
    /// in pieces, and the bytes every member expands to; nil when it does
    /// not parse.
    private static func readRecords(
        _ source: ArchiveReadSource, _ location: (offset: Int64, size: Int64, count: Int, end: Int64), maxSize: Int
    ) -> (records: [Record], expandedBytes: Int64)? {
        guard let total = source.size, location.offset >= 0, location.count <= location.size / 46,
              location.offset <= total - location.size
        else { return nil }
        var reader = PieceReader(source: source, start: location.offset, end: location.offset + location.size)
        var records: [Record] = []
        var expandedBytes: Int64 = 0
        for _ in 0..<location.count {
            guard let fixed = reader.peek(46), fixed.u32(0) == 0x0201_4b50 else { return nil }
            let (nameLength, extraLength, commentLength) = (fixed.u16(28), fixed.u16(30), fixed.u16(32))
            guard let record = reader.peek(46 + nameLength + extraLength + commentLength) else { return nil }
            reader.advance(record.count)
            // size, compressed size, local header offset; those at 0xFFFFFFFF
            // are in the zip64 extra field, in this order.
            var values = [UInt64(record.u32(24)), UInt64(record.u32(20)), UInt64(record.u32(42))]
            var extra = 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let (id, length) = (record.u16(extra), record.u16(extra + 2))
                guard extra + 4 + length <= extraEnd else { return nil }
                if id == 0x0001 {
                    var field = extra + 4
                    for index in values.indices where values[index] == 0xFFFF_FFFF {
                        guard field + 8 <= extra + 4 + length else { return nil }
                        values[index] = record.u64(field)
                        field += 8
                    }
                }
                extra += 4 + length
            }
            let (size, compressedSize, localHeader) = (values[0], values[1], values[2])
            // What a hostile directory declares may not fit: the sum stops at the largest.
            let (sum, overflow) = expandedBytes.addingReportingOverflow(Int64(clamping: size))
            expandedBytes = overflow ? .max : sum
            guard let method = ZipMember.Method(rawValue: UInt16(record.u16(10))), record.u16(8) & 0x41 == 0,  // not encrypted
                  size <= UInt64(maxSize), compressedSize <= UInt64(maxSize), localHeader < UInt64(total),
                  method == .deflated || compressedSize == size
            else { continue }
            records.append(Record(localHeader: Int64(localHeader), compressedSize: Int(compressedSize), size: Int(size),
                                  crc: record.u32(16), method: method))
        }
        return (records, expandedBytes)
    }

    /// `count` bytes at `offset` from the archive's start; nil when they cannot all be read.
    static func read(_ source: ArchiveReadSource, at offset: Int64, count: Int) -> LittleEndianBytes? {
        var bytes = [UInt8](repeating: 0, count: count)
        guard bytes.withUnsafeMutableBytes({ source.copyBytes(at: offset, into: $0) }) else { return nil }
        return LittleEndianBytes(bytes: bytes)
    }

    /// Reads a span of the archive in pieces of 1 MiB or more, so that a
    /// record of any length (at most 46 + 3 × 65,535 bytes) is whole in one.
    struct PieceReader {
        let source: ArchiveReadSource
        /// The archive offset of the piece's first byte, and the span's end.
        var start: Int64
        let end: Int64
        var piece = LittleEndianBytes(bytes: [])
        /// Bytes of the piece consumed.
        var used = 0

        init(source: ArchiveReadSource, start: Int64, end: Int64) {
            self.source = source
            self.start = start
            self.end = end
        }

        /// The next `count` bytes, not consumed; nil past the span's end.
        mutating func peek(_ count: Int) -> LittleEndianBytes? {
            if piece.count - used < count {
                start += Int64(used)
                let length = Int(min(end - start, Int64(max(count, 1 << 20))))
                guard length >= count, let next = ZipDirectory.read(source, at: start, count: length) else { return nil }
                piece = next
                used = 0
            }
            return piece.dropFirst(used, keeping: count)
        }

        mutating func advance(_ count: Int) {
            used += count
        }
    }
}

/// Bytes read as little-endian integers, from `base` on, sharing the
/// array's storage; every offset is checked by the caller against `count`
/// first.
struct LittleEndianBytes {
    private let bytes: [UInt8]
    private let base: Int
    let count: Int

    init(bytes: [UInt8]) {
        self.bytes = bytes
        base = 0
        count = bytes.count
    }

    private init(bytes: [UInt8], base: Int, count: Int) {
        self.bytes = bytes
        self.base = base
        self.count = count
    }

    /// The `count` bytes after the first `start`.
    func dropFirst(_ start: Int, keeping count: Int) -> LittleEndianBytes {
        precondition(start + count <= self.count)
        return LittleEndianBytes(bytes: bytes, base: base + start, count: count)
    }

    /// The `count` bytes after the first `start`.
    func bytes(_ start: Int, count: Int) -> ArraySlice<UInt8> {
        precondition(start + count <= self.count)
        return bytes[(base + start)..<(base + start + count)]
    }

    func u16(_ at: Int) -> Int {
        Int(bytes[base + at]) | Int(bytes[base + at + 1]) << 8
    }

    func u32(_ at: Int) -> UInt32 {
        UInt32(u16(at)) | UInt32(u16(at + 2)) << 16
    }

    func u64(_ at: Int) -> UInt64 {
        UInt64(u32(at)) | UInt64(u32(at + 4)) << 32
    }
}

/// Expands zip members' stored bytes on a worker thread and checks them as
/// libarchive would: the deflate stream must end exactly with the stored
/// bytes, give exactly the size the central directory gives, and have its
/// CRC-32. One inflate stream and one buffer of the largest size, reused.
final class ZipMemberExpander {
    /// What is wrong with a member's data, said for an error: `.corrupt`,
    /// or `.io` when zlib could not allocate its window.
    struct Damage: Error {
        var code: ArchiveError.Code = .corrupt
        var message: String
    }

    private let inflater: RawInflater
    private let output: UnsafeMutableRawBufferPointer

    /// An expander for members of up to `capacity` bytes; nil when zlib
    /// cannot allocate its stream.
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
        case .deflated:
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
                throw Damage(message: "the compressed data ends before its deflate stream does")
            case .endsEarly(let left):
                throw Damage(message: "the deflate stream ends \(left) bytes before the compressed data does")
            case .damaged:
                throw Damage(message: "the compressed data is damaged (not a valid deflate stream)")
            case .outOfMemory:
                throw Damage(code: .io, message: "zlib could not allocate memory to inflate it")
            }
        }
        let crc = UInt32(truncatingIfNeeded: crc32_z(0, contents.baseAddress?.assumingMemoryBound(to: Bytef.self), contents.count))
        guard crc == member.crc else {
            throw Damage(message: "the contents' CRC-32 is \(Self.hex(crc)), the archive gives \(Self.hex(member.crc))")
        }
        return contents
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
