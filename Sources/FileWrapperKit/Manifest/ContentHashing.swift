import Glibc

/// Hashing a regular file with SHA-256 as it is read, in blocks of at most
/// ``blockSize``, so that memory stays at one block a thread whatever the
/// file's size.
enum ContentHashing {
    /// 256 KiB: a block is still in the cache when it is hashed, and a
    /// worker's buffer costs as little memory for many large files as for
    /// one (1 MiB measured no faster, and a megabyte more on W2 than W3).
    static let blockSize = 1 << 18

    /// Reads the open file `fd` to its end through `buffer` and returns its
    /// digest, checking that it holds `size` bytes, the size `fstat` gave
    /// for it: a file that grows or shrinks meanwhile is an error. A file
    /// that fits in the buffer takes one `read`: a regular file gives fewer
    /// bytes than asked only at its end.
    static func digest(
        of fd: CInt, size: Int64, buffer: UnsafeMutableRawBufferPointer, progress: ManifestProgress?, path: Syscall.Path
    ) throws(FileWrapperError) -> SHA256Digest {
        var hasher = SHA256Hasher()
        var total: Int64 = 0
        while true {
            let count = try Syscall.retrying(.read, path) { Glibc.read(fd, buffer.baseAddress!, buffer.count) }
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += Int64(count)
            progress?.count(bytes: Int64(count))
            if total > size || (total == size && count < buffer.count) { break }
        }
        guard total == size else {
            throw FileWrapperError(.changedOnDisk, path: path(), detail: "the file changed size while it was read")
        }
        return hasher.finalize()
    }
}
