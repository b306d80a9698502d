import FileWrapperKit
import Foundation
import Glibc

extension ArchiveWriter {
    /// Writes `wrapper` as an archive to the open descriptor `fd`, in order
    /// and never seeking back (`write(2)`, every format, zip included: its
    /// sizes and CRCs go in data descriptors where they are not known
    /// before the data), so `fd` may be a pipe, a socket, a FIFO or a
    /// character device as well as a file, written from its current
    /// offset. The caller keeps and closes `fd`; `name` names it in errors.
    ///
    /// - Parameters:
    ///   - wrapper: The tree to write.
    ///   - fd: An open descriptor, written from its current offset.
    ///   - options: The format and how to write it.
    ///   - name: The archive's name in errors.
    /// - Throws: ``ArchiveError`` naming the archive and the entry when
    ///   libarchive refuses an entry or `write(2)` fails
    ///   (``ArchiveError/Code/io``); `FileWrapperError` when a file read
    ///   lazily cannot be read.
    public static func write(_ wrapper: FileWrapper, to fd: CInt, options: ArchiveWriteOptions, name: String = "archive") throws {
        try write(wrapper, rootName: nil, options: options, name: name, to: descriptorSink(fd, name: name))
    }

    /// `write(_:to:options:name:)` on the descriptor of `handle`.
    ///
    /// - Parameters:
    ///   - wrapper: The tree to write.
    ///   - handle: An open file handle, written from its current offset.
    ///   - options: The format and how to write it.
    ///   - name: The archive's name in errors.
    /// - Throws: As `write(_:to:options:name:)` on a descriptor.
    public static func write(_ wrapper: FileWrapper, to handle: FileHandle, options: ArchiveWriteOptions, name: String = "archive") throws {
        try write(wrapper, to: handle.fileDescriptor, options: options, name: name)
    }

    /// Packs what is on disk at `source`, as ``write(contentsOf:to:options:)``
    /// does, to the open descriptor `fd` as `write(_:to:options:name:)`
    /// writes it: in order, never seeking.
    ///
    /// - Parameters:
    ///   - source: The file, link or directory to pack.
    ///   - fd: An open descriptor, written from its current offset.
    ///   - options: The format and how to write it.
    ///   - name: The archive's name in errors.
    ///   - progress: Counts entries and bytes written; nil for none.
    /// - Throws: `FileWrapperError` when the walk of `source` fails or
    ///   refuses a name; ``ArchiveError`` naming the archive and the entry
    ///   when libarchive refuses an entry or `write(2)` fails.
    public static func write(
        contentsOf source: URL, to fd: CInt, options: ArchiveWriteOptions, name: String = "archive", progress: ManifestProgress? = nil
    ) throws {
        try write(contentsOf: source, options: options, name: name, progress: progress, to: descriptorSink(fd, name: name))
    }

    /// ``write(contentsOf:to:options:name:progress:)`` on the descriptor of `handle`.
    ///
    /// - Parameters:
    ///   - source: The file, link or directory to pack.
    ///   - handle: An open file handle, written from its current offset.
    ///   - options: The format and how to write it.
    ///   - name: The archive's name in errors.
    ///   - progress: Counts entries and bytes written; nil for none.
    /// - Throws: As `write(contentsOf:to:options:name:progress:)` on a descriptor.
    public static func write(
        contentsOf source: URL, to handle: FileHandle, options: ArchiveWriteOptions, name: String = "archive", progress: ManifestProgress? = nil
    ) throws {
        try write(contentsOf: source, to: handle.fileDescriptor, options: options, name: name, progress: progress)
    }

    /// A sink that writes every byte to `fd` (``Syscall/writeAll(_:to:path:)``),
    /// a failure an archive error naming `name`, the call and the errno.
    private static func descriptorSink(_ fd: CInt, name: String) -> (UnsafeRawBufferPointer) throws -> Void {
        { bytes in try ArchiveError.io(archive: name) { try Syscall.writeAll(bytes, to: fd, path: { name }) } }
    }
}
