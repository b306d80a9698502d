import Glibc

/// A fixed set of `pthread` mutexes that objects share by address: a lock
/// for each of many objects (every regular file wrapper) without the
/// memory of a lock in each.
///
/// `pthread` mutexes rather than `Synchronization.Mutex`: on Linux a
/// contended `Mutex` hands over through the kernel (a PI futex), which
/// ThreadSanitizer cannot see, so it reports what the mutex guards as
/// raced and would hide real races among false ones.
enum StripedLocks {
    private static let count = 64
    nonisolated(unsafe) private static let mutexes: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutexes = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: count)
        for index in 0..<count { pthread_mutex_init(mutexes + index, nil) }
        return mutexes
    }()

    /// Runs `body` holding the lock that `object` shares with the objects
    /// of its stripe. `body` must not take another of these locks.
    static func withLock<Result, Failure: Error>(
        for object: AnyObject, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        // Objects are 16-byte aligned: the bits above the alignment pick the stripe.
        let mutex = mutexes + Int((UInt(bitPattern: ObjectIdentifier(object)) >> 4) % UInt(count))
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
