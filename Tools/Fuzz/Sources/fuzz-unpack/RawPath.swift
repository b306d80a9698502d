import Glibc

/// System calls on absolute paths given as bytes, none of them following a
/// symlink at the end of the path (`lstat`, `readlink`, `opendir` only on
/// what `lstat` found a directory).
enum RawPath {
    static func join(_ base: [UInt8], _ names: [[UInt8]]) -> [UInt8] {
        var path = base
        path.reserveCapacity(names.reduce(base.count) { $0 + 1 + $1.count })
        for name in names {
            path.append(UInt8(ascii: "/"))
            path += name
        }
        return path
    }

    static func withCString<Result>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }

    /// `lstat`, or nil with `errno` set.
    static func status(_ path: [UInt8]) -> stat? {
        var info = stat()
        return withCString(path) { lstat($0, &info) } == 0 ? info : nil
    }

    static func linkTarget(_ path: [UInt8]) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = withCString(path) { name in
            buffer.withUnsafeMutableBufferPointer { readlink(name, UnsafeMutableRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), $0.count) }
        }
        return count < 0 ? nil : Array(buffer[..<count])
    }

    /// The names in a directory, `.` and `..` left out.
    static func names(in path: [UInt8]) -> [[UInt8]]? {
        guard let directory = withCString(path, { opendir($0) }) else { return nil }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
        }
        return names
    }

    static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }
    static func isSymlink(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFLNK }
    static func isFile(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }
}
