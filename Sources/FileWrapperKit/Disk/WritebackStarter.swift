import CFileSystem
import Glibc

/// Starts the kernel writing a growing file to disk while it is still being
/// written (`sync_file_range`), so that the `fsync` at its end waits only
/// for the last few mebibytes rather than for the whole file: a 1 GiB
/// archive's flush then overlaps its writing instead of following it.
package struct WritebackStarter {
    private let fd: CInt
    private var written: Int64 = 0
    private var started: Int64 = 0
    /// How much is written between two starts.
    private let stride: Int64

    /// `stride`: 8 MiB suits an archive; a smaller file that is written
    /// quickly (a manifest) starts sooner to overlap at all.
    package init(fd: CInt, stride: Int64 = 8 << 20) {
        self.fd = fd
        self.stride = stride
    }

    /// Counts `count` more bytes written; starts writing back what has
    /// accumulated once a stride is reached. A file system that does not
    /// support it changes nothing: the final `fsync` does the work.
    package mutating func wrote(_ count: Int) {
        written += Int64(count)
        guard written - started >= stride else { return }
        _ = Syscall.invoke(.syncFileRange) { cfs_start_writeback(fd, off_t(started), off_t(written - started)) }
        started = written
    }
}
