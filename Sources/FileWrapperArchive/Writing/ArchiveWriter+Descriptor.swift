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
    public static func write(_ wrapper: FileWrapper, to fd: CInt, options: ArchiveWriteOptions, name: String = "archive") throws {
        try write(wrapper, rootName: nil, options: options, name: name, to: descriptorSink(fd, name: name))
    }

    /// `write(_:to:options:name:)` on the descriptor of `handle`.
    public static func write(_ wrapper: FileWrapper, to handle: FileHandle, options: ArchiveWriteOptions, name: String = "archive") throws {
        try write(wrapper, to: handle.fileDescriptor, options: options, name: name)
    }

    /// Packs what is on disk at `source`, as ``write(contentsOf:to:options:)``
    /// does, to the open descriptor `fd` as `write(_:to:options:name:)`
    /// writes it: in order, never seeking.
    public static func write(
        contentsOf source: URL, to fd: CInt, options: ArchiveWriteOptions, name: String = "archive", progress: ManifestProgress? = nil
    ) throws {
        try write(contentsOf: source, options: options, name: name, progress: progress, to: descriptorSink(fd, name: name))
    }

    /// ``write(contentsOf:to:options:name:progress:)`` on the descriptor of `handle`.
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
