import Glibc

/// What tells one version of a file on disk from another: which inode it
/// is, its size, modification time and mode. A lazily read file must still
/// have the identity it was read with; an unchanged file may be hard-linked
/// into a new save.
package struct FileIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modified: FileTimestamp
    package var mode: UInt32

    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = FileTimestamp(info.st_mtim)
        mode = info.st_mode
    }

    /// Throws unless the open file `fd`, read to its end, still has this
    /// identity (`fstat`): a file that grew, or changed in place, while it
    /// was read gives the bytes of no one version.
    package func checkUnchanged(_ fd: CInt, path: Syscall.Path) throws(FileWrapperError) {
        guard FileIdentity(try Syscall.status(of: fd, path: path)) == self else {
            throw FileWrapperError(.changedOnDisk, path: path(), detail: "the file changed while it was read")
        }
    }

    /// Whether `info` describes the same inode (device and inode number).
    func isSameInode(as info: stat) -> Bool {
        device == UInt64(info.st_dev) && inode == UInt64(info.st_ino)
    }
}
