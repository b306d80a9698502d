import CFileSystem
import Foundation
import Glibc

/// What is on disk below a directory, read with plain `lstat`, `readlink`
/// and `lgetxattr` calls independent of FileWrapperKit, for comparing trees.
public struct DiskTree: Equatable, CustomStringConvertible {
    public struct Entry: Equatable {
        public var kind: String
        public var mode: UInt32
        public var modified: timespecValue
        public var contents: Data?
        public var linkTarget: String?
        public var xattrs: [String: Data]
    }

    public struct timespecValue: Equatable {
        public var seconds: Int
        public var nanoseconds: Int

        public init(seconds: Int, nanoseconds: Int) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }
    }

    /// Entries by path relative to the root ("" is the root itself).
    public var entries: [String: Entry]

    /// Reads the tree at `url`. Modification times of directories are
    /// included only when `directoryTimes` is set.
    public init(_ url: URL, directoryTimes: Bool = true) throws {
        entries = [:]
        var pending = [""]
        while let relative = pending.popLast() {
            let path = relative.isEmpty ? url.path : url.path + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
            var entry = Entry(
                kind: "", mode: info.st_mode & 0o7777,
                modified: timespecValue(seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec),
                contents: nil, linkTarget: nil, xattrs: Self.xattrs(path))
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                entry.kind = "file"
                entry.contents = try Data(contentsOf: URL(fileURLWithPath: path))
            case S_IFLNK:
                entry.kind = "symlink"
                entry.mode = 0
                entry.linkTarget = try FileManager.default.destinationOfSymbolicLink(atPath: path)
            case S_IFDIR:
                entry.kind = "directory"
                if !directoryTimes { entry.modified = timespecValue(seconds: 0, nanoseconds: 0) }
                for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                    pending.append(relative.isEmpty ? name : relative + "/" + name)
                }
            default:
                entry.kind = "other"
            }
            entries[relative] = entry
        }
    }

    /// The tree with every modification time zeroed: for comparing what
    /// trees hold when their files' times depend on when they were written.
    public var ignoringTimes: DiskTree {
        var tree = self
        for key in tree.entries.keys {
            tree.entries[key]!.modified = timespecValue(seconds: 0, nanoseconds: 0)
        }
        return tree
    }

    private static func xattrs(_ path: String) -> [String: Data] {
        var names = [CChar](repeating: 0, count: 4096)
        let length = cfs_llistxattr(path, &names, names.count)
        guard length > 0 else { return [:] }
        var result: [String: Data] = [:]
        for raw in names[..<length].split(separator: 0) {
            let name = String(decoding: raw.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var value = [UInt8](repeating: 0, count: 65536)
            let size = cfs_lgetxattr(path, name, &value, value.count)
            if size >= 0 { result[name] = Data(value[..<size]) }
        }
        return result
    }

    public var description: String {
        entries.keys.sorted().map { key in
            let entry = entries[key]!
            return "\(key.isEmpty ? "." : key) \(entry.kind) \(String(entry.mode, radix: 8)) \(entry.modified.seconds).\(entry.modified.nanoseconds) \(entry.contents?.count ?? 0) \(entry.linkTarget ?? "") \(entry.xattrs.keys.sorted())"
        }.joined(separator: "\n")
    }
}

/// Small helpers for building trees on disk with exact metadata.
public enum Disk {
    public static func write(_ text: String, to url: URL, mode: mode_t = 0o644) throws {
        try write(Data(text.utf8), to: url, mode: mode)
    }

    public static func write(_ data: Data, to url: URL, mode: mode_t = 0o644) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        chmod(url.path, mode)
    }

    public static func setModificationTime(_ url: URL, seconds: Int, nanoseconds: Int) {
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
        utimensat(AT_FDCWD, url.path, &times, AT_SYMLINK_NOFOLLOW)
    }

    public static func setXattr(_ name: String, _ value: String, on url: URL) throws {
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        let bytes = Array(value.utf8)
        guard cfs_fsetxattr(fd, name, bytes, bytes.count) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno)!)
        }
    }

    public static func inode(_ url: URL) -> UInt64 {
        var info = stat()
        lstat(url.path, &info)
        return UInt64(info.st_ino)
    }

    public static func linkCount(_ url: URL) -> Int {
        var info = stat()
        lstat(url.path, &info)
        return Int(info.st_nlink)
    }

    /// Mounts a tmpfs of `size` (such as `1m`), and of at most `inodes`
    /// files and directories when given, on a new directory `name` inside
    /// `directory`. Needs root; undo with ``unmount(_:)``.
    public static func mountTmpfs(size: String, inodes: Int? = nil, named name: String, in directory: TemporaryDirectory) throws -> URL {
        let mountPoint = directory.appending(name)
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let options = "size=\(size)" + (inodes.map { ",nr_inodes=\($0)" } ?? "")
        let result = try run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", mountPoint.path])
        guard result.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: result.stderr]) }
        return mountPoint
    }

    public static func unmount(_ mountPoint: URL) {
        _ = try? run("/bin/umount", [mountPoint.path])
    }

    /// Names in a directory, hidden ones included.
    public static func names(in url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// Runs a program and returns its exit status and standard error.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let result = try ChildProcess.run(executable, arguments)
        return (result.status, result.stderr)
    }

    /// The directory holding the built products (the test bundle and `fwk-test-child`).
    public static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }
}
