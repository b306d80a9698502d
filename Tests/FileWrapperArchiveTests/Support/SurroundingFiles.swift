import Foundation
import Glibc
import Testing

/// Files and directories around an unpack's destination `w/p/dest`, as
/// `fuzz-unpack` lays them out: files of known contents with modes 0600 and
/// 0644 and directories 0700, one and two levels above it, with names an
/// archive's links reach (`victim`, `a`, `K`). ``snapshot()`` reads all of
/// them but the destination with `lstat`, names as bytes, never following
/// a link.
struct SurroundingFiles {
    /// What `lstat` gives of one path, and a file's contents.
    struct Record: Equatable {
        var mode: mode_t
        var links: UInt
        var size: Int
        var inode: ino_t
        /// Modification and change times.
        var times: [Int]?
        var contents: [UInt8]?
    }

    let work: URL
    var destination: URL { work.appendingPathComponent("p/dest") }

    /// Makes the tree in `directory/w`.
    init(in directory: URL) throws {
        work = directory.appendingPathComponent("w")
        let files = [("victim", 0o600), ("a", 0o644), ("b/victim", 0o600), ("p/victim", 0o644), ("p/a", 0o600), ("p/K/a", 0o644)]
        for folder in ["", "b", "p", "p/K"] {
            try FileManager.default.createDirectory(at: work.appendingPathComponent(folder), withIntermediateDirectories: true)
            #expect(chmod(work.appendingPathComponent(folder).path, 0o700) == 0)
        }
        for (name, mode) in files {
            try Data("\(name) before the unpack\n".utf8).write(to: work.appendingPathComponent(name))
            #expect(chmod(work.appendingPathComponent(name).path, mode_t(mode)) == 0)
        }
    }

    /// Every path below `w` (`w` itself as the empty path) but the destination.
    func snapshot() -> [[UInt8]: Record] {
        var records: [[UInt8]: Record] = [:]
        var pending: [[UInt8]] = [[]]
        let root = Array(work.path.utf8)
        let parent = Array("p".utf8)
        let destination = Array("p/dest".utf8)
        while let relative = pending.popLast() {
            let path = relative.isEmpty ? root : root + [UInt8(ascii: "/")] + relative
            var info = stat()
            guard (path + [0]).withUnsafeBufferPointer({ $0.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) } }) == 0
            else { continue }
            var record = Record(mode: info.st_mode, links: UInt(info.st_nlink), size: info.st_size, inode: info.st_ino,
                                times: [info.st_mtim.tv_sec, info.st_mtim.tv_nsec, info.st_ctim.tv_sec, info.st_ctim.tv_nsec])
            // The destination's parent: its links and times change as the destination comes and goes.
            if relative == parent { (record.links, record.times) = (0, nil) }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                record.contents = FileManager.default.contents(atPath: String(decoding: path, as: UTF8.self)).map { Array($0) }
            case S_IFDIR:
                for name in Self.names(in: path) {
                    let child = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
                    if child != destination { pending.append(child) }
                }
            default: break
            }
            records[relative] = record
        }
        return records
    }

    /// The names in a directory as bytes (`readdir`), `.` and `..` left out.
    static func names(in path: [UInt8]) -> [[UInt8]] {
        guard let directory = (path + [0]).withUnsafeBufferPointer({ $0.withMemoryRebound(to: CChar.self) { opendir($0.baseAddress!) } })
        else { return [] }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != Array(".".utf8), name != Array("..".utf8) { names.append(name) }
        }
        return names
    }
}
