import Foundation
import Glibc

/// A pipe that another thread fills, for readers of a stream.
public enum PipeFeed {
    /// The read end of a pipe into which a thread of its own writes `data`
    /// and then closes its end; the caller closes the read end.
    public static func reading(_ data: Data) throws -> CInt {
        try feeding(data).reader
    }

    /// What a feed's writer has done: how many bytes it wrote, known once
    /// it has finished.
    public final class Writer: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var count = 0

        fileprivate func finish(written: Int) {
            lock.withLock { count = written }
            done.signal()
        }

        /// Waits for the writer to end (all written, or the read end
        /// closed) and gives the bytes it wrote into the pipe.
        public func written() -> Int {
            done.wait()
            done.signal()
            return lock.withLock { count }
        }
    }

    /// ``reading(_:)``, with the writer's count. The writer blocks SIGPIPE
    /// on its thread, so that a reader that closes the read end early
    /// makes its next write fail with EPIPE (and the signal, pending on the
    /// thread, goes with it) rather than end the test process.
    public static func feeding(_ data: Data) throws -> (reader: CInt, writer: Writer) {
        var ends: [CInt] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let writeEnd = ends[1]
        let writer = Writer()
        Thread {
            blockBrokenPipe()
            var offset = 0
            data.withUnsafeBytes { bytes in
                while offset < bytes.count, case let count = write(writeEnd, bytes.baseAddress! + offset, bytes.count - offset), count > 0 {
                    offset += count
                }
            }
            close(writeEnd)
            writer.finish(written: offset)
        }.start()
        return (ends[0], writer)
    }

    /// The read end of a pipe (both ends close-on-exec) into which a thread of its
    /// own writes `head` and then zeros, without end, until no one holds
    /// the read end (EPIPE); the caller closes the read end.
    public static func endless(after head: Data) throws -> (reader: CInt, writer: Writer) {
        var ends: [CInt] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let writeEnd = ends[1]
        let writer = Writer()
        Thread {
            blockBrokenPipe()
            var total = 0
            var block = [UInt8](head)
            block += [UInt8](repeating: 0, count: 1 << 16)
            var start = 0
            while true {
                let count = block.withUnsafeBytes { write(writeEnd, $0.baseAddress! + start, $0.count - start) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                total += count
                start += count
                if start == block.count {
                    block = [UInt8](repeating: 0, count: 1 << 16)
                    start = 0
                }
            }
            close(writeEnd)
            writer.finish(written: total)
        }.start()
        return (ends[0], writer)
    }

    /// Blocks SIGPIPE on the calling thread: a write to a pipe no one
    /// reads then fails with EPIPE.
    private static func blockBrokenPipe() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
    }
}
