import FileWrapperKit
import Foundation
import Glibc

/// Where a command writes the file it makes (`pack`'s ARCHIVE, `snapshot
/// -o`), as the path given means it:
///
/// - `-` is standard output;
/// - a regular file, or nothing, is replaced (or made) atomically, beside
///   itself under a temporary name and renamed into place;
/// - a symbolic link is never replaced: its chain is followed
///   (`readlink`, at most 40 links) and what it ends at is taken by these
///   rules, so that a link to an archive keeps pointing at the new one; a
///   link into `/proc/self/fd/N` or `/dev/fd/N` (as `/dev/stdout` is)
///   means this process's descriptor N, written where the shell left it;
/// - a character or block device, a FIFO or a socket is opened and
///   written to as a stream: no temporary, no rename;
/// - a directory is refused.
///
/// A terminal is refused where the output is binary.
enum OutputDestination {
    /// An open descriptor, written in order; closed at the end when `owned`.
    case stream(fd: CInt, name: String, owned: Bool)
    /// The path of a regular file to replace, or of a new one to make.
    case file(path: String)

    /// How the path `given` is written to, `binary` saying whether a
    /// terminal must be refused.
    static func resolving(_ given: String, binary: Bool) throws -> OutputDestination {
        if given == "-" {
            return try stream(fd: STDOUT_FILENO, name: "standard output", owned: false, binary: binary)
        }
        var path = given
        for _ in 0..<40 {
            if let fd = Self.descriptorNumber(in: path) {
                return try stream(fd: fd, name: given, owned: false, binary: binary)
            }
            var status = stat()
            guard Syscall.invoke(.lstat, { lstat(path, &status) }) == 0 else {
                if errno == ENOENT { return .file(path: path) }
                throw OutputRefused(given, path: path, reason: String(cString: strerror(errno)))
            }
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                return .file(path: path)
            case S_IFDIR:
                throw OutputRefused(given, path: path, reason: "is a directory; give a file name")
            case S_IFLNK:
                path = try target(of: path, given: given)
            case S_IFSOCK:
                return try stream(fd: connect(to: path, given: given), name: given, owned: true, binary: binary)
            default:
                let fd = Syscall.invoke(.open) { Glibc.open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
                guard fd >= 0 else { throw OutputRefused(given, path: path, reason: "cannot open: \(String(cString: strerror(errno)))") }
                return try stream(fd: fd, name: given, owned: true, binary: binary)
            }
        }
        throw OutputRefused(given, path: path, reason: "too many levels of symbolic links")
    }

    /// Writes `bytes`, made whole in memory, here: a regular file is
    /// written beside itself under a temporary name, synced and renamed
    /// into place (``PendingReplacement``), so that a reader finds the old
    /// file or the new one, whole; a stream is written to in order, and
    /// closed when owned.
    func write(_ bytes: some ContiguousBytes) throws {
        switch self {
        case .file(let path):
            Interruption.removesTemporaries(replacing: path)
            try Self.replace(path, with: bytes)
        case .stream(let fd, let name, let owned):
            defer { if owned { Syscall.close(fd) } }
            do {
                try bytes.withUnsafeBytes { try Syscall.writeAll($0, to: fd, path: { name }) }
            } catch {
                throw fd == STDOUT_FILENO && !owned ? StandardOutputError(error) : error
            }
        }
    }

    /// Writes `bytes` beside `path` under a temporary name and renames it
    /// into place (``PendingReplacement``).
    private static func replace(_ path: String, with bytes: some ContiguousBytes) throws {
        let slash = path.lastIndex(of: "/")
        let parentPath = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let parent = try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
        defer { Syscall.close(parent) }
        let replacement = PendingReplacement(of: name, in: parent, parentPath: parentPath)
        let fd = try replacement.createFile()
        do {
            defer { Syscall.close(fd) }
            try bytes.withUnsafeBytes { try Syscall.writeAll($0, to: fd, path: { path }) }
            try replacement.commit(.synced, file: fd)
        } catch {
            replacement.discard()
            throw error
        }
    }

    /// A stream on `fd`, unless it is a terminal and the output binary.
    private static func stream(fd: CInt, name: String, owned: Bool, binary: Bool) throws -> OutputDestination {
        if binary, isatty(fd) == 1 {
            if owned { Syscall.close(fd) }
            throw OutputRefused(name, path: name, reason: "is a terminal; an archive is written to a file or a pipe (redirect it)")
        }
        return .stream(fd: fd, name: name, owned: owned)
    }

    /// The descriptor a path names when it is `/proc/self/fd/N`,
    /// `/proc/<this process>/fd/N` or `/dev/fd/N`.
    private static func descriptorNumber(in path: String) -> CInt? {
        for prefix in ["/proc/self/fd/", "/proc/\(getpid())/fd/", "/dev/fd/"] where path.hasPrefix(prefix) {
            return CInt(path.dropFirst(prefix.count))
        }
        return nil
    }

    /// Where the symbolic link at `path` points, a relative target taken
    /// from the link's own folder (`readlink`).
    private static func target(of path: String, given: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { throw OutputRefused(given, path: path, reason: "readlink: \(String(cString: strerror(errno)))") }
        let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("/") { return target }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return folder == "/" ? "/" + target : folder + "/" + target
    }

    /// A stream socket connected to the Unix socket at `path` (`connect`).
    private static func connect(to path: String, given: String) throws -> CInt {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw OutputRefused(given, path: path, reason: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            Syscall.close(fd)
            throw OutputRefused(given, path: path, reason: "the socket's path is too long to connect to")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Syscall.close(fd)
            throw OutputRefused(given, path: path, reason: "connect: \(reason)")
        }
        return fd
    }
}

/// An output path that cannot be written as asked, naming it (and the
/// path its symbolic links led to, when that differs).
struct OutputRefused: Error, LocalizedError {
    var message: String

    init(_ given: String, path: String, reason: String) {
        let name = Format.name(given.utf8)
        message = path == given ? "\(name) \(reason)" : "\(name) (a symbolic link to \(Format.name(path.utf8))) \(reason)"
    }

    var errorDescription: String? { message }
}
