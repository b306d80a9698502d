import Glibc

/// A value behind a `pthread` mutex, for state that any thread may read
/// and change.
///
/// Used instead of `Synchronization.Mutex` for the reason that
/// ``StripedLocks`` gives: a contended `Mutex` hands over through the
/// kernel, which ThreadSanitizer cannot see, so it reports the value as
/// raced (CI's ThreadSanitizer run once failed on `UTTypeRegistry` so).
package final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
