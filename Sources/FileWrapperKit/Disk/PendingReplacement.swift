import CFileSystem
import Glibc

/// What a replacement must have put on the disk before it reports success.
/// Either way it is atomic: other processes see the old item or the new
/// one, whole, never a mix.
public enum Durability: Sendable, Hashable {
    /// The new item's data, then its directory entry: the file's `fsync`
    /// (or `syncfs` for a tree) before the swap, the parent directory's
    /// `fsync` after it. A power cut after success finds the new item.
    case synced
    /// Left to the kernel's writeback, as `tar`, `unzip` and `cp` leave it:
    /// other processes see the old item or the new one, whole, but a power
    /// cut soon after may find either, or the new one partly written.
    case deferred
}

/// The one way every writer replaces an item: the new item is made beside
/// `name` under a locked temporary name (``temporary``), then ``commit(_:file:overwriting:)``
/// brings it to the disk as the ``Durability`` asks and swaps it into place,
/// or ``discard()`` removes it. Made by ``init(of:in:parentPath:)``, which
/// first removes what dead writers of `name` left (see ``Replacement``).
package struct PendingReplacement {
    package let name: String
    package let parent: CInt
    package let parentPath: String
    /// The temporary's name in `parent`, locked for this writer.
    package let temporary: String

    /// `parent` must stay open until the replacement is committed or discarded.
    package init(of name: String, in parent: CInt, parentPath: String) {
        Replacement.removeLeftovers(of: name, in: parent, parentPath: parentPath)
        self.name = name
        self.parent = parent
        self.parentPath = parentPath
        temporary = Replacement.temporaryName(for: name, lockingIn: parent)
    }

    /// The final path, for errors.
    package var path: String { PathDisplay.join(parentPath, [name]) }

    /// Creates the temporary as a file open for writing (`openat` with
    /// `O_CREAT | O_EXCL | O_NOFOLLOW`), with the permission bits of the
    /// regular file at `name` if there is one, set (`fchmod`) before
    /// anything is written so that a private file's replacement is never
    /// readable by others; else those of any new file (0666 less the umask).
    package func createFile() throws(FileWrapperError) -> CInt {
        let path = { self.path }
        let existing = Syscall.statusIfPresent(of: name, in: parent)
        let replacesFile = existing.map { FileKind(mode: $0.st_mode) == .regularFile } ?? false
        let fd = try Syscall.open(temporary, in: parent, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: replacesFile ? 0o600 : 0o666, path: path)
        guard replacesFile else { return fd }
        do throws(FileWrapperError) {
            try Syscall.retrying(.fchmod, path) { fchmod(fd, existing!.st_mode & 0o777) }
            return fd
        } catch {
            Syscall.close(fd)
            Syscall.removeQuietly(temporary, in: parent)
            throw error
        }
    }

    /// The permission bits for a directory that replaces `name`: `mode`
    /// less what the directory now there withholds (the stricter of the
    /// two), so that a private directory stays private; `mode` when no
    /// directory is there.
    package func directoryMode(_ mode: mode_t) -> mode_t {
        guard let existing = Syscall.statusIfPresent(of: name, in: parent), FileKind(mode: existing.st_mode) == .directory else { return mode }
        return mode & existing.st_mode & 0o777
    }

    /// Puts the finished temporary in place of `name`. With `.synced`, the
    /// temporary's data reaches the disk first (`fsync` of `file`, the
    /// temporary's open descriptor, or `syncfs` of the file system when it
    /// is a tree) and the parent's entry after (`fsync` of `parent`).
    /// Over an existing item only when `overwriting` (else `EEXIST`); what
    /// is replaced is removed afterwards, best effort (a leftover the next
    /// writer removes). On an error before the swap the temporary is left
    /// for ``discard()``; once swapped, the new item stays in place.
    package func commit(_ durability: Durability, file: CInt? = nil, overwriting: Bool = true) throws(FileWrapperError) {
        if durability == .synced {
            if let file {
                try Syscall.retrying(.fsync, { self.path }) { fsync(file) }
            } else {
                try Syscall.retrying(.syncfs, { self.parentPath }) { cfs_syncfs(parent) }
            }
        }
        let replaced: String?
        if overwriting {
            replaced = try Replacement.swap(temporary, into: name, in: parent, parentPath: parentPath)
        } else {
            try Replacement.move(temporary, toNew: name, in: parent, parentPath: parentPath)
            replaced = nil
        }
        // The new item is in place from here on, whatever the last sync says.
        defer {
            if let replaced { try? TreeRemover.remove(Array(replaced.utf8), in: parent, parentPath: parentPath) }
        }
        if durability == .synced {
            try Syscall.retrying(.fsync, { self.parentPath }) { fsync(parent) }
        }
    }

    /// Removes the temporary and whatever was made below it.
    package func discard() {
        try? TreeRemover.remove(Array(temporary.utf8), in: parent, parentPath: parentPath)
    }
}
