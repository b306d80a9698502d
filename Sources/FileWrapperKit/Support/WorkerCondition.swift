import Glibc

/// The lock and condition variables that the threads of a parallel job
/// (``WorkerThreads``) wait on: one `pthread` mutex and `count` condition
/// variables, so that a job with several kinds of waiters (each unpack
/// worker's lane, and the reader waiting for room) wakes only the one it
/// means. Condition `0` is the default.
///
/// `pthread` primitives rather than `NSCondition` or `Synchronization.Mutex`:
/// one kind across every job, and one that ThreadSanitizer sees (see
/// ``Locked``).
package final class WorkerCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let count: Int

    /// A lock with `count` condition variables (at least one).
    package init(conditions count: Int = 1) {
        self.count = max(1, count)
        conditions = .allocate(capacity: self.count)
        pthread_mutex_init(mutex, nil)
        for index in 0..<self.count { pthread_cond_init(conditions + index, nil) }
    }

    deinit {
        for index in 0..<count { pthread_cond_destroy(conditions + index) }
        pthread_mutex_destroy(mutex)
        conditions.deallocate()
        mutex.deallocate()
    }

    package func lock() {
        pthread_mutex_lock(mutex)
    }

    package func unlock() {
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` holding the lock.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits on condition `index`, the lock held (released while waiting).
    package func wait(_ index: Int = 0) {
        pthread_cond_wait(conditions + index, mutex)
    }

    /// Wakes one thread waiting on condition `index`.
    package func signal(_ index: Int = 0) {
        pthread_cond_signal(conditions + index)
    }

    /// Wakes every thread waiting on condition `index`.
    package func broadcast(_ index: Int = 0) {
        pthread_cond_broadcast(conditions + index)
    }
}
