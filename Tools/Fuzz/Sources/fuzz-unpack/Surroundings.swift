@testable import FileWrapperKit
import Glibc

/// The tree around the destination, made once per process in a fresh
/// directory (on tmpfs, `/dev/shm`, when there is one) and checked after
/// every unpack: no symlinks in it, files of known contents with modes 0600
/// and 0644, directories 0700, fixed times, one and two levels above the
/// destination (`ROOT/w/p/dest`), with names an archive's atoms can reach
/// (`victim`, `a`, `K`). The archive lies in `ROOT`.
final class Surroundings {
    struct Sentinel {
        let names: [[UInt8]]
        /// A file's contents; nil for a directory.
        let contents: [UInt8]?
        let mode: mode_t

        init(_ names: [String], contents: String? = nil, mode: mode_t) {
            self.names = names.map { Array($0.utf8) }
            self.contents = contents.map { Array($0.utf8) }
            self.mode = mode
        }
    }

    let root: [UInt8]
    var archive: [UInt8] { RawPath.join(root, [Array("archive".utf8)]) }
    var parent: [UInt8] { RawPath.join(root, [Array("w".utf8), Array("p".utf8)]) }
    var destination: [UInt8] { RawPath.join(parent, [Array("dest".utf8)]) }

    static let sentinels: [Sentinel] = [
        Sentinel(["w"], mode: 0o700),
        Sentinel(["w", "a"], contents: "level two a\n", mode: 0o644),
        Sentinel(["w", "victim"], contents: "level two secret\n", mode: 0o600),
        Sentinel(["w", "b"], mode: 0o700),
        Sentinel(["w", "b", "victim"], contents: "level two b secret\n", mode: 0o600),
        Sentinel(["w", "p"], mode: 0o700),
        Sentinel(["w", "p", "a"], contents: "level one a\n", mode: 0o600),
        Sentinel(["w", "p", "victim"], contents: "level one secret\n", mode: 0o644),
        Sentinel(["w", "p", "K"], mode: 0o700),
        Sentinel(["w", "p", "K", "a"], contents: "level one K a\n", mode: 0o644),
    ]

    /// The names in each directory of the tree (the root's: `w` and the archive).
    static let names: [[[UInt8]]: Set<[UInt8]>] = {
        var names: [[[UInt8]]: Set<[UInt8]>] = [[]: [Array("w".utf8), Array("archive".utf8)]]
        for sentinel in sentinels {
            names[Array(sentinel.names.dropLast()), default: []].insert(sentinel.names[sentinel.names.count - 1])
            if sentinel.contents == nil { names[sentinel.names, default: []].formUnion([]) }
        }
        return names
    }()

    /// What `lstat` gave for each sentinel once it was made.
    private var made: [stat] = []
    /// Their inodes: no file of the destination may be one of them.
    private(set) var inodes: Set<ino_t> = []

    /// Makes the tree in a new directory named for this process, after
    /// removing such directories of processes that have ended.
    init() {
        let base = RawPath.status(Array("/dev/shm".utf8)).map(RawPath.isDirectory) == true ? "/dev/shm" : "/tmp"
        Self.removeAbandoned(in: base)
        root = Array("\(base)/fuzz-unpack-\(getpid())".utf8)
        Self.removeTree(Array(root.split(separator: UInt8(ascii: "/")).last!), in: Array(base.utf8))
        precondition(RawPath.withCString(root) { mkdir($0, 0o700) } == 0, "cannot make the fuzz directory")
        for sentinel in Self.sentinels {
            let path = RawPath.join(root, sentinel.names)
            if let contents = sentinel.contents {
                let fd = RawPath.withCString(path) { open($0, O_WRONLY | O_CREAT | O_EXCL, sentinel.mode) }
                precondition(fd >= 0 && write(fd, contents, contents.count) == contents.count)
                close(fd)
            } else {
                precondition(RawPath.withCString(path) { mkdir($0, sentinel.mode) } == 0)
            }
            precondition(RawPath.withCString(path) { chmod($0, sentinel.mode) } == 0)
        }
        // Times last, deepest first, so that making a child changes no time set.
        for sentinel in Self.sentinels.reversed() {
            let times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
            precondition(RawPath.withCString(RawPath.join(root, sentinel.names)) { utimensat(AT_FDCWD, $0, times, AT_SYMLINK_NOFOLLOW) } == 0)
        }
        made = Self.sentinels.map { RawPath.status(RawPath.join(root, $0.names))! }
        inodes = Set(made.map(\.st_ino))
    }

    /// What changed outside the destination, or nil: a sentinel's bytes,
    /// type, mode, owner, links, size, inode, modification or change time
    /// (the destination's parent: its type, mode, owner and inode; its
    /// times change as the destination comes and goes), or a name that was
    /// not there. `destinationExists` is whether the unpack succeeded.
    func change(destinationExists: Bool) -> String? {
        for (sentinel, before) in zip(Self.sentinels, made) {
            let path = RawPath.join(root, sentinel.names)
            let shown = { UnpackProgram.escaped(path) }
            guard let after = RawPath.status(path) else { return "\(shown()) is gone (errno \(errno))" }
            let isParent = sentinel.names.count == 2 && sentinel.names[1] == Array("p".utf8)
            var differences: [String] = []
            if after.st_mode != before.st_mode { differences.append("mode \(String(before.st_mode, radix: 8)) -> \(String(after.st_mode, radix: 8))") }
            if after.st_uid != before.st_uid || after.st_gid != before.st_gid { differences.append("owner") }
            if after.st_ino != before.st_ino { differences.append("inode (replaced)") }
            if !isParent {
                if after.st_nlink != before.st_nlink { differences.append("links \(before.st_nlink) -> \(after.st_nlink)") }
                if after.st_size != before.st_size { differences.append("size \(before.st_size) -> \(after.st_size)") }
                if after.st_mtim != before.st_mtim { differences.append("mtime \(before.st_mtim.tv_sec) -> \(after.st_mtim.tv_sec)") }
                if after.st_ctim != before.st_ctim { differences.append("ctime (mode, owner, times or links were set)") }
            }
            if let contents = sentinel.contents, RawPath.isFile(after), Self.contents(of: path) != contents {
                differences.append("contents")
            }
            if !differences.isEmpty { return "\(shown()) changed: \(differences.joined(separator: ", "))" }
        }
        // Names: the sentinels, the archive and (after a success) the destination, nothing else.
        var expected = Self.names
        if destinationExists { expected[[Array("w".utf8), Array("p".utf8)]]!.insert(Array("dest".utf8)) }
        for (names, expectedNames) in expected {
            let path = RawPath.join(root, names)
            let found = Set(RawPath.names(in: path) ?? [])
            if found != expectedNames {
                let extra = found.subtracting(expectedNames).map { "\"\(UnpackProgram.escaped($0))\"" }
                let missing = expectedNames.subtracting(found).map { "\"\(UnpackProgram.escaped($0))\"" }
                return "\(UnpackProgram.escaped(path)): new \(extra.sorted()), missing \(missing.sorted())"
            }
        }
        return nil
    }

    /// What an unpack that replaces the destination finds there: symlinks
    /// that lead out (`a -> ../K`, `victim -> ../victim`, `b -> ../../b`)
    /// and a folder `old` with a file. Returns the folder's inode; a
    /// replaced destination is a new one.
    func makeOldDestination() -> ino_t {
        let old = Array("old".utf8)
        precondition(RawPath.withCString(destination) { mkdir($0, 0o755) } == 0)
        precondition(RawPath.withCString(RawPath.join(destination, [old])) { mkdir($0, 0o755) } == 0)
        write(Array("old\n".utf8), to: RawPath.join(destination, [old, Array("f".utf8)]))
        for (name, target) in Self.oldLinks {
            precondition(RawPath.withCString(RawPath.join(destination, [name])) { path in
                RawPath.withCString(target) { symlink($0, path) }
            } == 0)
        }
        return RawPath.status(destination)!.st_ino
    }

    static let oldLinks: [([UInt8], [UInt8])] = [("a", "../K"), ("victim", "../victim"), ("b", "../../b")]
        .map { (Array($0.utf8), Array($1.utf8)) }
    /// The names in the destination ``makeOldDestination()`` makes.
    static let oldNames = Set(oldLinks.map(\.0) + [Array("old".utf8)])

    static func contents(of path: [UInt8]) -> [UInt8]? {
        let fd = RawPath.withCString(path) { open($0, O_RDONLY | O_NOFOLLOW) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &buffer, buffer.count)
        return count < 0 ? nil : Array(buffer[..<count])
    }

    /// Removes `name` in the directory `parent` and all below it, as the
    /// library removes trees (``TreeRemover``: through descriptors, never
    /// following a symlink, making read-only directories writable); traps if
    /// it cannot.
    static func removeTree(_ name: [UInt8], in parent: [UInt8]) {
        guard RawPath.status(RawPath.join(parent, [name])) != nil else { return }
        let fd = RawPath.withCString(parent) { open($0, O_RDONLY | O_DIRECTORY) }
        precondition(fd >= 0, "cannot open \(UnpackProgram.escaped(parent))")
        defer { close(fd) }
        do {
            try TreeRemover.remove(name, in: fd, parentPath: String(decoding: parent, as: UTF8.self))
        } catch {
            preconditionFailure("cannot remove \(UnpackProgram.escaped(name)): \(error)")
        }
    }

    /// Removes the `fuzz-unpack-PID` directories of processes that no longer run.
    private static func removeAbandoned(in base: String) {
        for name in RawPath.names(in: Array(base.utf8)) ?? [] {
            let text = String(decoding: name, as: UTF8.self)
            guard text.hasPrefix("fuzz-unpack-"), let pid = pid_t(text.dropFirst("fuzz-unpack-".count)),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            removeTree(name, in: Array(base.utf8))
        }
    }
}

extension timespec: @retroactive Equatable {
    public static func == (lhs: timespec, rhs: timespec) -> Bool {
        lhs.tv_sec == rhs.tv_sec && lhs.tv_nsec == rhs.tv_nsec
    }
}
