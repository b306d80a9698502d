import FileWrapperKit
import Foundation
import Glibc

/// Threads that run ``DeflateJob``s, one per core, each with a deflate
/// stream of its own. Jobs are taken in the order submitted and finish in
/// any order; the writer waits for the one it needs next.
///
/// The threads are joined by ``stop()``, which the owner calls when it
/// closes and from its `deinit`, so that none outlives it.
final class DeflateWorkers: @unchecked Sendable {
    /// Guards `queue`, `stopping` and every job's `isDone`.
    private let condition = NSCondition()
    private var queue: [DeflateJob] = []
    private var stopping = false
    private var threads: [pthread_t] = []

    /// Starts `count` threads deflating at `level`, or only checksumming
    /// when `level` is nil. Throws when a stream or a thread cannot be had.
    init(count: Int, level: Int?, archive: String) throws {
        for _ in 0..<count {
            var deflater: RawDeflater?
            if let level {
                guard let made = RawDeflater(level: level) else {
                    stop()
                    throw ArchiveError(.libarchive, archive: archive, message: "zlib could not allocate a compressor")
                }
                deflater = made
            }
            do throws(ThreadStarter.Failure) {
                threads.append(try ThreadStarter.start { self.work(with: deflater) })
            } catch {
                stop()
                throw ArchiveError(.libarchive, archive: archive, message: "could not start a compression thread: \(error)")
            }
        }
    }

    /// Queues `job` for the next free thread.
    func submit(_ job: DeflateJob) {
        condition.lock()
        job.isDone = false
        queue.append(job)
        condition.broadcast()
        condition.unlock()
    }

    /// Returns when `job`, submitted earlier, is done.
    func wait(for job: DeflateJob) {
        condition.lock()
        while !job.isDone { condition.wait() }
        condition.unlock()
    }

    /// Whether `job` is done, without waiting.
    func isDone(_ job: DeflateJob) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return job.isDone
    }

    /// Lets each thread finish the job it is running, leaves the queued
    /// ones, and joins the threads. Idempotent.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        for thread in threads { pthread_join(thread, nil) }
        threads.removeAll()
    }

    /// A thread's loop: the next job, until stopped.
    private func work(with deflater: RawDeflater?) {
        condition.lock()
        while true {
            while queue.isEmpty, !stopping { condition.wait() }
            if stopping { break }
            let job = queue.removeFirst()
            condition.unlock()
            job.run(with: deflater)
            condition.lock()
            job.isDone = true
            condition.broadcast()
        }
        condition.unlock()
    }
}
