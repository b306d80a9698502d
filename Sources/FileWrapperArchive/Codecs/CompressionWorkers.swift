import FileWrapperKit
import Glibc

/// A unit of work for ``CompressionWorkers``, run with the compressor of the
/// thread that takes it.
///
/// Ownership passes with the job: the writer fills it and hands it to
/// ``CompressionWorkers/submit(_:)``; a worker alone touches it until it is
/// marked done under the workers' lock; then the writer reads the results.
protocol CompressionJob: AnyObject {
    /// What each thread keeps for its jobs (a compression stream).
    associatedtype Compressor
    /// Set under the workers' lock.
    var isDone: Bool { get set }
    func run(with compressor: Compressor)
}

/// Threads that run jobs, one per core, each with a compressor of its own.
/// Jobs are taken in the order submitted and finish in any order; the
/// writer waits for the one it needs next.
///
/// The threads are joined by ``stop()``, which the owner calls when it
/// closes and from its `deinit`, so that none outlives it.
final class CompressionWorkers<Job: CompressionJob>: @unchecked Sendable {
    /// Guards `queue`, `stopping` and every job's `isDone`.
    private let condition = WorkerCondition()
    private var queue: [Job] = []
    private var stopping = false
    private var threads = WorkerThreads()

    /// Starts `count` threads, each with a compressor from `makeCompressor`.
    /// Throws what `makeCompressor` throws, or when a thread cannot be had.
    init(count: Int, archive: String, makeCompressor: () throws -> Job.Compressor) throws {
        for _ in 0..<count {
            let compressor: Job.Compressor
            do {
                compressor = try makeCompressor()
            } catch {
                stop()
                throw error
            }
            do throws(WorkerThreads.Failure) {
                try threads.start { self.work(with: compressor) }
            } catch {
                stop()
                throw ArchiveError(.libarchive, archive: archive, message: "could not start a compression thread: \(error)")
            }
        }
    }

    /// Queues `job` for the next free thread.
    func submit(_ job: Job) {
        condition.lock()
        job.isDone = false
        queue.append(job)
        condition.broadcast()
        condition.unlock()
    }

    /// Returns when `job`, submitted earlier, is done.
    func wait(for job: Job) {
        condition.lock()
        while !job.isDone { condition.wait() }
        condition.unlock()
    }

    /// Whether `job` is done, without waiting.
    func isDone(_ job: Job) -> Bool {
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
        threads.joinAll()
    }

    /// A thread's loop: the next job, until stopped.
    private func work(with compressor: Job.Compressor) {
        condition.lock()
        while true {
            while queue.isEmpty, !stopping { condition.wait() }
            if stopping { break }
            let job = queue.removeFirst()
            condition.unlock()
            job.run(with: compressor)
            condition.lock()
            job.isDone = true
            condition.broadcast()
        }
        condition.unlock()
    }
}
