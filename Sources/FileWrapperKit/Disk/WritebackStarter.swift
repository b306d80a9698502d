import CFileSystem
import Glibc

/// Starts the kernel writing a growing file to disk while it is still being
/// written (`sync_file_range`), so that the `fsync` at its end waits only
/// for the last few mebibytes rather than for the whole file: a 1 GiB
/// archive's flush then overlaps its writing instead of following it.
///
/// The calls run on a thread of its own: `sync_file_range` waits whenever
/// the device's queue is full, and the writer should go on meanwhile
/// (docs/performance.md, "Writeback on its own thread").
/// The thread works on its own duplicate of the descriptor, so that the
/// writer may close its own at any time; it ends, joined, when the starter
/// is released. Without a duplicate or a thread the starter does nothing,
/// and the final `fsync` does the work.
package final class WritebackStarter {
    /// What the writer and the thread share, under ``condition``.
    private final class Progress: @unchecked Sendable {
        let condition = WorkerCondition()
        /// Where the writeback asked for so far ends.
        var end: Int64 = 0
        var isEnding = false
    }

    private let progress = Progress()
    private let fd: CInt
    /// Started at the first stride, so that a small file costs no thread.
    private var thread = WorkerThreads()
    private var isStarted = false
    private var written: Int64 = 0
    private var handedOver: Int64 = 0
    /// How much is written between two starts.
    private let stride: Int

    /// What an archive's writeback starts by.
    package static let archiveStride = 8 << 20

    /// `stride`: ``archiveStride`` suits an archive; a smaller file that is
    /// written quickly (a manifest) starts sooner to overlap at all.
    package init(fd: CInt, stride: Int = archiveStride) {
        self.fd = fd
        self.stride = stride
    }

    deinit {
        progress.condition.withLock { progress.isEnding = true }
        progress.condition.signal()
        thread.joinAll()
    }

    /// Counts `count` more bytes written; hands what has accumulated to
    /// the thread once a stride is reached.
    package func wrote(_ count: Int) {
        written += Int64(count)
        guard written - handedOver >= Int64(stride) else { return }
        if !isStarted { startThread() }
        handedOver = written
        progress.condition.withLock { progress.end = handedOver }
        progress.condition.signal()
    }

    private func startThread() {
        isStarted = true
        let duplicate = Syscall.invoke(.dup) { dup(fd) }
        guard duplicate >= 0 else { return }
        let progress = progress
        do throws(WorkerThreads.Failure) {
            try thread.start { Self.startWriteback(of: duplicate, as: progress) }
        } catch {
            Syscall.close(duplicate)
        }
    }

    /// The thread: starts the writeback of each range handed over, until
    /// the starter ends; then closes `fd`, its duplicate.
    private static func startWriteback(of fd: CInt, as progress: Progress) {
        var started: Int64 = 0
        while true {
            progress.condition.lock()
            while progress.end == started, !progress.isEnding { progress.condition.wait() }
            let end = progress.end
            progress.condition.unlock()
            guard end > started else { break }
            _ = Syscall.invoke(.syncFileRange) { cfs_start_writeback(fd, off_t(started), off_t(end - started)) }
            started = end
        }
        Syscall.close(fd)
    }
}
