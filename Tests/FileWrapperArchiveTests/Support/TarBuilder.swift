import Foundation

/// A ustar archive built in memory entry by entry, for tests that need what
/// our writer never writes (hard links, entries in a chosen order, a hostile
/// entry after thousands of good ones). Names up to 100 bytes.
struct TarBuilder {
    private(set) var data = Data()

    mutating func file(_ name: String, contents: [UInt8], mode: Int = 0o644, modified: Int = 0) {
        header(name, type: "0", mode: mode, size: contents.count, modified: modified)
        data.append(contentsOf: contents)
        data.append(contentsOf: [UInt8](repeating: 0, count: (512 - contents.count % 512) % 512))
    }

    mutating func directory(_ name: String, mode: Int = 0o755, modified: Int = 0) {
        header(name, type: "5", mode: mode, modified: modified)
    }

    mutating func hardLink(_ name: String, to target: String) {
        header(name, type: "1", link: target)
    }

    mutating func symlink(_ name: String, to target: String) {
        header(name, type: "2", mode: 0o777, link: target)
    }

    /// The archive with its end: two blocks of zeros.
    var archive: Data {
        data + Data(count: 1024)
    }

    private mutating func header(_ name: String, type: Character, mode: Int = 0o644, size: Int = 0, modified: Int = 0, link: String = "") {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ bytes: some Collection<UInt8>, at offset: Int, width: Int) {
            precondition(bytes.count <= width, "a tar field of \(width) bytes cannot hold \(bytes.count)")
            block.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        }
        func octal(_ value: Int, at offset: Int, width: Int) {
            let digits = String(value, radix: 8)
            put((String(repeating: "0", count: width - 1 - digits.count) + digits).utf8, at: offset, width: width - 1)
        }
        put(name.utf8, at: 0, width: 100)
        octal(mode, at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        octal(size, at: 124, width: 12)
        octal(modified, at: 136, width: 12)
        put(type.utf8, at: 156, width: 1)
        put(link.utf8, at: 157, width: 100)
        put("ustar\u{0}00".utf8, at: 257, width: 8)
        // The checksum counts its own field as eight spaces.
        put([UInt8](repeating: 0x20, count: 8), at: 148, width: 8)
        octal(block.reduce(0) { $0 + Int($1) }, at: 148, width: 7)
        data.append(contentsOf: block)
    }
}
