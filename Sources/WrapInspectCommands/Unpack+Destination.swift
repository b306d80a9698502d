import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc

extension Unpack {
    /// The folder `unpack ARCHIVE` makes when no DESTINATION is given: the
    /// archive's name in the current directory, less its ending and a
    /// `.tar` or `.cpio` before it (`Travel.zip` -> `Travel`,
    /// `dir/Book.tar.zst` -> `Book`), as `unar` names it. Nil when nothing
    /// would be left, or the archive is standard input.
    static func defaultDestination(for archive: String) -> String? {
        guard !StandardInput.isNamed(by: archive) else { return nil }
        var name = Substring(URL(fileURLWithPath: archive).lastPathComponent)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        name = name[..<dot]
        for inner in [".tar", ".cpio"] where name.lowercased().hasSuffix(inner) {
            name = name.dropLast(inner.count)
        }
        return name.isEmpty || name == "." || name == ".." ? nil : String(name)
    }

    /// Refuses, before anything is read, a destination that `--force`
    /// would replace and no one means to lose (and names it so without
    /// `--force`, rather than suggest it): the root, the current directory or a
    /// folder that holds it, the archive being read or a folder that holds
    /// it. The destination is taken as the unpacker takes it (the path made
    /// standard, its last name looked at without following a symbolic link,
    /// `fstatat(AT_SYMLINK_NOFOLLOW)`), and compared by device and inode with
    /// each folder met going up from the current directory and from the
    /// archive's (`openat("..")` to the root), so that no spelling (`.`,
    /// `sub/..`, an absolute path, another mount of the same folder) slips by.
    static func checkReplaceable(_ destination: String, archive: String) throws {
        let standardized = URL(fileURLWithPath: destination).standardizedFileURL
        let name = standardized.lastPathComponent
        guard name != "/" else {
            throw DestinationRefused(destination: destination, reason: "is the root directory; unpack never replaces it")
        }
        var status = stat()
        // Nothing there: nothing to replace.
        guard Syscall.invoke(.lstat, { lstat(standardized.path, &status) }) == 0 else { return }
        let target = InodeIdentity(status)
        let isDirectory = status.st_mode & S_IFMT == S_IFDIR
        if isDirectory, InodeIdentity.folders(from: ".").contains(target) {
            throw DestinationRefused(
                destination: destination,
                reason: "is the current directory or holds it; unpack never replaces it (unpack into a new folder instead)")
        }
        guard !StandardInput.isNamed(by: archive) else { return }
        var archiveStatus = stat()
        guard stat(archive, &archiveStatus) == 0 else { return }
        if InodeIdentity(archiveStatus) == target {
            throw DestinationRefused(destination: destination, reason: "is the archive being read; unpack never replaces it")
        }
        let archiveFolder = URL(fileURLWithPath: archive).deletingLastPathComponent().path
        if isDirectory, InodeIdentity.folders(from: archiveFolder).contains(target) {
            throw DestinationRefused(
                destination: destination,
                reason: "holds the archive being read; unpack never replaces it (unpack into a new folder instead)")
        }
    }
}

/// A destination `unpack --force` will not replace, and why.
struct DestinationRefused: Error, LocalizedError {
    var destination: String
    var reason: String

    var errorDescription: String? { "\(Format.name(destination.utf8)) \(reason)" }
}

/// A file's device and inode: what makes two paths the same file.
struct InodeIdentity: Hashable {
    var device: UInt64
    var inode: UInt64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// The folder at `path` and every folder above it to the root, found
    /// by opening `..` from each (`openat`), not by reading names. Empty
    /// when `path` cannot be opened.
    static func folders(from path: String) -> Set<InodeIdentity> {
        var found: Set<InodeIdentity> = []
        var fd = Syscall.invoke(.open) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        while fd >= 0 {
            var status = stat()
            guard Syscall.invoke(.fstat, { fstat(fd, &status) }) == 0, found.insert(InodeIdentity(status)).inserted else { break }
            // `..` is never a symbolic link; O_NOFOLLOW says so to the source audit.
            let parent = Syscall.invoke(.openat) { openat(fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            Syscall.close(fd)
            fd = parent
        }
        if fd >= 0 { Syscall.close(fd) }
        return found
    }
}
