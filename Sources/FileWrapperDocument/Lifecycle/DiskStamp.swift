import FileWrapperKit
import Foundation
import Glibc

/// What a document looked like on disk when it was last read or written,
/// to tell whether another program changed it since: for every entry of
/// the tree (one for a flat file or a zip container, all of them for a
/// bundle) its relative path, kind, device and inode, size and
/// modification time to the nanosecond.
///
/// Sound and cheap: an edit in place changes a file's size or modification
/// time, a replacement (what editors and atomic saves do) changes its
/// inode, and an added, removed or renamed entry changes the list; it costs
/// one `fstatat` per entry and reads no contents. It does not see a change
/// that keeps a file's inode, size and modification time, which only a
/// program that sets the time back makes.
struct DiskStamp: Hashable, Sendable {
    private struct Entry: Hashable {
        var path: [UInt8]
        var mode: UInt32
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
    }

    private var entries: [Entry] = []

    /// The stamp of what is at `url` now; an empty stamp when nothing is.
    init(of url: URL) {
        var info = stat()
        guard Syscall.invoke(.lstat, { lstat(url.path, &info) }) == 0 else { return }
        entries.append(Self.entry([], info))
        if info.st_mode & S_IFMT == S_IFDIR {
            let fd = Syscall.invoke(.open) { open(url.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            guard fd >= 0 else { return }
            defer { Syscall.close(fd) }
            walk(fd, under: [], path: url.path)
        }
    }

    /// Whether nothing was at the place stamped.
    var isNothing: Bool { entries.isEmpty }

    /// Adds the entries below the open directory `fd`, sorted by name bytes.
    private mutating func walk(_ fd: CInt, under prefix: [UInt8], path: String) {
        guard let names = try? Syscall.names(inDirectory: fd, path: { path }) else {
            entries.append(Entry(path: prefix + Array("/<unreadable>".utf8), mode: 0, device: 0, inode: 0, size: 0, seconds: 0, nanoseconds: 0))
            return
        }
        for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let relative = prefix.isEmpty ? name : prefix + [UInt8(ascii: "/")] + name
            guard let info = try? Syscall.status(ofBytes: name, in: fd, path: { path }) else { continue }
            entries.append(Self.entry(relative, info))
            guard info.st_mode & S_IFMT == S_IFDIR,
                  let child = try? Syscall.open(bytes: name, in: fd, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: { path })
            else { continue }
            walk(child, under: relative, path: path)
            Syscall.close(child)
        }
    }

    private static func entry(_ path: [UInt8], _ info: stat) -> Entry {
        Entry(path: path, mode: info.st_mode & S_IFMT, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
              size: Int64(info.st_size), seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
    }
}
