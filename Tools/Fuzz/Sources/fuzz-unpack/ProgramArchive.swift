/// The bytes of a tar (pax or GNU) or a zip holding a program's entries,
/// names and targets exactly as given: our own small writers, because the
/// package's writers refuse or normalise the names this fuzzing is about.
enum ProgramArchive {
    static func bytes(_ program: UnpackProgram) -> [UInt8] {
        switch program.format {
        case .paxTar, .gnuTar: tar(program.entries, gnu: program.format == .gnuTar)
        case .zip: zip(program.entries, namesAreUTF8: program.zipNamesAreUTF8)
        }
    }

    // MARK: tar

    /// A tar: pax extended headers (`path`, `linkpath`) for names that are
    /// not ASCII or longer than 100 bytes, as Python's tarfile writes them, or
    /// GNU `././@LongLink` entries for long ones; then two zero blocks.
    static func tar(_ entries: [UnpackProgram.Entry], gnu: Bool) -> [UInt8] {
        var out: [UInt8] = []
        for entry in entries {
            let type: UInt8 = switch entry.kind {
            case .directory: UInt8(ascii: "5")
            case .file: UInt8(ascii: "0")
            case .symlink: UInt8(ascii: "2")
            case .hardLink: UInt8(ascii: "1")
            }
            let contents = entry.kind == .file ? entry.contents : []
            let needsMore = { (name: [UInt8]) in name.count > 100 || (!gnu && name.contains { $0 >= 0x80 }) }
            if gnu {
                if needsMore(entry.target) { appendTarEntry(&out, "././@LongLink", type: UInt8(ascii: "K"), entry.target + [0], gnu: true) }
                if needsMore(entry.path) { appendTarEntry(&out, "././@LongLink", type: UInt8(ascii: "L"), entry.path + [0], gnu: true) }
            } else if needsMore(entry.path) || needsMore(entry.target) {
                var records = paxRecord("path", entry.path)
                if !entry.target.isEmpty { records += paxRecord("linkpath", entry.target) }
                appendTarEntry(&out, "PaxHeader/entry", type: UInt8(ascii: "x"), records, gnu: false)
            }
            out += tarHeader(name: entry.path, mode: entry.mode, size: contents.count, modified: entry.modified,
                             type: type, link: entry.target, gnu: gnu)
            appendPadded(&out, contents)
        }
        out += [UInt8](repeating: 0, count: 1024)
        return out
    }

    private static func appendTarEntry(_ out: inout [UInt8], _ name: String, type: UInt8, _ data: [UInt8], gnu: Bool) {
        out += tarHeader(name: Array(name.utf8), mode: 0o644, size: data.count, modified: 0, type: type, link: [], gnu: gnu)
        appendPadded(&out, data)
    }

    private static func appendPadded(_ out: inout [UInt8], _ data: [UInt8]) {
        out += data
        out += [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
    }

    /// `LENGTH key=value\n`, where LENGTH counts the whole record, itself included.
    static func paxRecord(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let rest = Array(" \(key)=".utf8) + value + [UInt8(ascii: "\n")]
        var length = rest.count + 1
        while String(length).utf8.count + rest.count != length { length += 1 }
        return Array(String(length).utf8) + rest
    }

    /// One 512-byte header: ustar (`ustar\0` `00`) or GNU (`ustar  \0`),
    /// names cut at their fields' widths, the checksum made right.
    static func tarHeader(name: [UInt8], mode: UInt32, size: Int, modified: Int, type: UInt8, link: [UInt8], gnu: Bool) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ bytes: [UInt8], at offset: Int, width: Int) {
            for (index, byte) in bytes.prefix(width).enumerated() { header[offset + index] = byte }
        }
        func octal(_ value: Int, at offset: Int, width: Int) {
            let digits = Array(String(value, radix: 8).utf8)
            put(Array(repeating: UInt8(ascii: "0"), count: max(0, width - 1 - digits.count)) + digits, at: offset, width: width - 1)
        }
        put(name, at: 0, width: 100)
        octal(Int(mode), at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        octal(size, at: 124, width: 12)
        octal(modified, at: 136, width: 12)
        header[156] = type
        put(link, at: 157, width: 100)
        put(Array((gnu ? "ustar  " : "ustar").utf8) + [0], at: 257, width: 8)
        if !gnu { put(Array("00".utf8), at: 263, width: 2) }
        put(Array("root".utf8), at: 265, width: 32)
        put(Array("root".utf8), at: 297, width: 32)
        put([UInt8](repeating: UInt8(ascii: " "), count: 8), at: 148, width: 8)
        let sum = header.reduce(0) { $0 + Int($1) }
        octal(sum, at: 148, width: 7)
        header[155] = UInt8(ascii: " ")
        return header
    }

    // MARK: zip

    /// A zip of stored members made on Unix (mode and type in the external
    /// attributes); a symlink's target is its contents, and a hard link,
    /// which zip cannot hold, is a file holding its target's name.
    static func zip(_ entries: [UnpackProgram.Entry], namesAreUTF8: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        let date: UInt16 = (2026 - 1980) << 9 | 1 << 5 | 1
        for entry in entries {
            let (type, data): (UInt32, [UInt8]) = switch entry.kind {
            case .directory: (0o040000, [])
            case .file: (0o100000, entry.contents)
            case .symlink: (0o120000, entry.target)
            case .hardLink: (0o100000, entry.target)
            }
            let flags: UInt16 = namesAreUTF8 && entry.path.contains { $0 >= 0x80 } ? 0x800 : 0
            let crc = crc32(data)
            let offset = out.count
            func common(_ to: inout [UInt8]) {
                le16(&to, 20); le16(&to, flags); le16(&to, 0); le16(&to, 0); le16(&to, date)
                le32(&to, crc); le32(&to, UInt32(data.count)); le32(&to, UInt32(data.count))
                le16(&to, UInt16(entry.path.count)); le16(&to, 0)
            }
            le32(&out, 0x0403_4b50)
            common(&out)
            out += entry.path + data

            le32(&central, 0x0201_4b50)
            le16(&central, 3 << 8 | 30)
            common(&central)
            le16(&central, 0); le16(&central, 0); le16(&central, 0)
            le32(&central, (type | entry.mode & 0o7777) << 16 | (entry.kind == .directory ? 0x10 : 0))
            le32(&central, UInt32(offset))
            central += entry.path
        }
        let centralOffset = out.count
        out += central
        le32(&out, 0x0605_4b50)
        le16(&out, 0); le16(&out, 0)
        le16(&out, UInt16(entries.count)); le16(&out, UInt16(entries.count))
        le32(&out, UInt32(central.count)); le32(&out, UInt32(centralOffset))
        le16(&out, 0)
        return out
    }

    private static func le16(_ out: inout [UInt8], _ value: UInt16) {
        out += [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    private static func le32(_ out: inout [UInt8], _ value: UInt32) {
        le16(&out, UInt16(value & 0xFFFF)); le16(&out, UInt16(value >> 16))
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 != 0 ? 0xEDB8_8320 ^ crc >> 1 : crc >> 1 }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ crc >> 8 }
    }
}
