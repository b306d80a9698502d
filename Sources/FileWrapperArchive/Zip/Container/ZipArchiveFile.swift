import FileWrapperKit
import Glibc

/// A zip on disk that a lazily read tree comes from (``ZipContainer``):
/// its path, the identity it had when its central directory was read, its
/// members in the directory's order, which a save keeps, and the limits
/// its tree was read with, which a save passes on to the zip it writes.
///
/// Every read opens the file by its path again and checks its identity
/// (``FileIdentity``: device, inode, size, modification time), and checks
/// it again once done: a zip replaced or written since it was opened gives
/// a ``FileWrapperError/Code/changedOnDisk`` error, never other bytes.
final class ZipArchiveFile: Sendable {
    /// A member as the central directory lists it, for a save to keep its place.
    struct Entry: Sendable {
        /// The path's names joined by `/` (``PathKey``), as the tree holds them.
        var path: [UInt8]
        var kind: FileKind
    }

    let path: String
    let identity: FileIdentity
    /// The members in the central directory's order.
    let entries: [Entry]
    /// The limits the tree was read with (``ZipContainer/fileWrapper(contentsOf:limits:)``):
    /// its members are read within them (``ArchiveReadLimits/maxMemory``),
    /// and so are those of the zip a save writes from the tree.
    let limits: ArchiveReadLimits

    init(path: String, identity: FileIdentity, entries: [Entry], limits: ArchiveReadLimits) {
        self.path = path
        self.identity = identity
        self.entries = entries
        self.limits = limits
    }

    /// Opens the zip for reading (`openat`) and checks that it is still the
    /// file whose directory was read (`fstat`).
    func open() throws(FileWrapperError) -> CInt {
        let fd = try Syscall.open(path, in: AT_FDCWD, flags: O_RDONLY, path: { self.path })
        do throws(FileWrapperError) {
            try checkUnchanged(fd)
            return fd
        } catch {
            Syscall.close(fd)
            throw error
        }
    }

    /// Throws unless the open zip `fd` still has the identity it was read with.
    func checkUnchanged(_ fd: CInt) throws(FileWrapperError) {
        guard FileIdentity(try Syscall.status(of: fd, path: { self.path })) == identity else {
            throw FileWrapperError(.changedOnDisk, path: path, detail:
                "the archive changed on disk after it was opened (it was replaced or written to); its members are not read from it")
        }
    }

    /// Reads exactly `buffer.count` bytes at `offset` (`pread`); a zip that
    /// ends before is damaged or changed.
    func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, member: String) throws(FileWrapperError) {
        var filled = 0
        while filled < buffer.count {
            let count = try Syscall.retrying(.pread, { self.path }) {
                pread(fd, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset + Int64(filled)))
            }
            guard count > 0 else {
                throw damage(member: member, "the archive ends inside the member's data")
            }
            filled += count
        }
    }

    /// An error about damaged data of `member`, naming the archive and the member.
    func damage(member: String, _ message: String) -> FileWrapperError {
        FileWrapperError(.ioError, path: path, detail: "member \"\(PathDisplay.text(Array(member.utf8)))\": \(message)")
    }
}
