/// The local and central headers of a zip, found through its end record
/// (and the zip64 end record where there is one), read with bounds-checked
/// little-endian reads.
struct ZipHeaders {
    struct Header {
        var kind: String
        var offset: Int
        var name: String
        /// Year, month, day, hour, minute, second from the DOS fields.
        var dosDateTime: [Int]
        /// The modification time in the UT (0x5455) extra field.
        var utModified: UInt32?
        var method: Int
        var hasDescriptor: Bool
        /// The sizes and, for a central record, the local header's offset,
        /// from the zip64 extra field where the 32-bit field is 0xFFFFFFFF.
        var compressedSize: UInt64
        var size: UInt64
        var localOffset: UInt64
        var hasZip64Field: Bool

        var entryName: String { name.hasSuffix("/") ? String(name.dropLast()) : name }
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    var local: [Header] = []
    var central: [Header] = []
    /// The entry count in the classic end record, and in the zip64 one.
    var classicCount: Int
    var zip64Count: UInt64?

    init(_ bytes: [UInt8]) throws {
        func unsigned(_ at: Int, _ width: Int) throws -> UInt64 {
            guard at >= 0, at + width <= bytes.count else { throw Malformed(description: "read past the end at \(at)") }
            return bytes[at..<at + width].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        func u16(_ at: Int) throws -> Int { Int(try unsigned(at, 2)) }
        func header(_ kind: String, at offset: Int, signature: UInt64, fixed: Int) throws -> (Header, end: Int) {
            guard try unsigned(offset, 4) == signature else { throw Malformed(description: "no \(kind) header at \(offset)") }
            let central = fixed == 46
            // Central records have "version made by" first: their fields sit two bytes further on.
            let shift = central ? 2 : 0
            let time = try u16(offset + 10 + shift)
            let date = try u16(offset + 12 + shift)
            let nameLength = try u16(offset + 26 + shift)
            let extraLength = try u16(offset + 28 + shift)
            guard offset + fixed + nameLength + extraLength <= bytes.count else { throw Malformed(description: "\(kind) header overruns at \(offset)") }
            var header = Header(
                kind: kind, offset: offset, name: String(decoding: bytes[offset + fixed..<offset + fixed + nameLength], as: UTF8.self),
                dosDateTime: [date >> 9 + 1980, date >> 5 & 0xF, date & 0x1F, time >> 11, time >> 5 & 0x3F, (time & 0x1F) * 2],
                method: try u16(offset + 8 + shift), hasDescriptor: try u16(offset + 6 + shift) & 8 != 0,
                compressedSize: try unsigned(offset + 18 + shift, 4), size: try unsigned(offset + 22 + shift, 4),
                localOffset: central ? try unsigned(offset + 42, 4) : 0, hasZip64Field: false)
            var field = offset + fixed + nameLength
            let end = field + extraLength
            while field + 4 <= end {
                let tag = try u16(field)
                let length = try u16(field + 2)
                guard field + 4 + length <= end else { throw Malformed(description: "extra field overruns at \(field)") }
                if tag == 0x5455, length >= 5, bytes[field + 4] & 1 != 0 {
                    header.utModified = UInt32(try unsigned(field + 5, 4))
                }
                if tag == 0x0001 {
                    header.hasZip64Field = true
                    var value = field + 4
                    for keyPath in [\Header.size, \Header.compressedSize, \Header.localOffset] where header[keyPath: keyPath] == 0xFFFF_FFFF {
                        header[keyPath: keyPath] = try unsigned(value, 8)
                        value += 8
                    }
                }
                field += 4 + length
            }
            return (header, end)
        }

        // The end record is the last 22 bytes: we write no comment.
        let end = bytes.count - 22
        guard try unsigned(end, 4) == 0x0605_4B50 else { throw Malformed(description: "no end of central directory record") }
        classicCount = try u16(end + 10)
        var count = UInt64(classicCount)
        var offset = Int(try unsigned(end + 16, 4))
        var directoryEnd = end
        if end >= 20, try unsigned(end - 20, 4) == 0x0706_4B50 {
            directoryEnd = Int(try unsigned(end - 12, 8))
            guard try unsigned(directoryEnd, 4) == 0x0606_4B50 else { throw Malformed(description: "no zip64 end record at \(directoryEnd)") }
            count = try unsigned(directoryEnd + 32, 8)
            zip64Count = count
            offset = Int(try unsigned(directoryEnd + 48, 8))
        }
        for _ in 0..<count {
            let (record, next) = try header("central", at: offset, signature: 0x0201_4B50, fixed: 46)
            central.append(record)
            local.append(try header("local", at: Int(record.localOffset), signature: 0x0403_4B50, fixed: 30).0)
            offset = next + (try u16(offset + 32))
        }
        guard offset == directoryEnd else { throw Malformed(description: "the central directory does not end where the end records are") }
    }
}
