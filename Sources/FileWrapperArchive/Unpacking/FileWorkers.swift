import FileWrapperKit
import Glibc
import Synchronization

/// A regular file an unpack makes: where, and the mode and time it gets
/// once its bytes are written.
struct NewFile: Sendable {
    let directory: OpenDirectory
    let name: String
    /// Its path below the destination, for errors.
    let names: [String]
    /// The entry as the archive names it, for errors.
    let entry: String
    let mode: mode_t
    /// `Syscall.omitTime` keeps the time it was made.
    let modified: timespec

    /// Creates it empty, with `openat(O_CREAT | O_EXCL | O_NOFOLLOW)`.
    func create(path: Syscall.Path) throws(FileWrapperError) -> CInt {
        try Syscall.open(name, in: directory.fd, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600, path: path)
    }

    /// Gives the written file its mode and time (`fchmod`, `futimens`).
    func finish(_ fd: CInt, path: Syscall.Path) throws(FileWrapperError) {
        try Syscall.retrying("fchmod", path) { fchmod(fd, mode) }
        let times = [Syscall.omitTime, modified]
        try Syscall.retrying("futimens", path) { futimens(fd, times) }
    }
}

/// Threads that make the small regular files of an unpack while its thread
/// goes on reading the archive, so that the kernel creates files on every
/// core (creating files is nearly all of the time of unpacking many small
/// ones).
///
/// Each file comes with all its bytes. What is queued or being written is
/// bounded by ``maxBytes`` and ``maxFiles``: ``submit(_:contents:)`` waits
/// for room, so memory and open descriptors stay flat whatever the archive.
/// Workers take files in the order they were submitted; after the first
/// failure they take no more. The threads start with the first file and
/// end in ``finish()`` or ``stop(after:)``, one of which must be called.
final class FileWorkers: @unchecked Sendable {
    /// Files larger than this are not handed to workers: the unpack's thread
    /// streams them, so that no whole large file is ever in memory.
    static let largeFile = 1 << 18
    /// Bytes queued or being written, at most (unless a single file is larger).
    static let maxBytes = 2 << 20
    /// Files queued or being written, at most: each may hold a directory
    /// descriptor that the unpack's cache has let go of.
    static let maxFiles = 256
    /// Files queued before a sleeping worker is woken, unless the unpack's
    /// thread waits or turns to long work first: one wake a file would cost
    /// that thread more than the file.
    static let wakeBatch = 16

    private struct Queued {
        var sequence: Int
        var file: NewFile
        var contents: [UInt8]
    }

    private let archive: String
    private let destination: String
    private let workerCount: Int
    private var threads: [pthread_t] = []

    /// Guards the condition variables and everything after them.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Signalled when a file is queued or the workers must stop.
    private let fileQueued = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Signalled when what is in flight drops to half the bounds, when all
    /// is written, and on a failure.
    private let roomMade = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// A ring of `maxFiles` slots: `queuedCount` files from `head` on.
    private var queue = [Queued?](repeating: nil, count: maxFiles)
    private var head = 0
    private var queuedCount = 0
    private var idleWorkers = 0
    private var filesInFlight = 0
    private var bytesInFlight = 0
    private var nextSequence = 0
    private var stopping = false
    /// The failure of the earliest file that failed.
    private var failure: (sequence: Int, error: ArchiveError)?
    /// Whether ``failure`` is set, read without the lock between entries.
    private let failed = Atomic<Bool>(false)

    /// `count` workers (at least one) for the unpack of `archive` into
    /// `destination`, both named in errors.
    init(count: Int, archive: String, destination: String) {
        workerCount = max(1, count)
        self.archive = archive
        self.destination = destination
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(fileQueued, nil)
        pthread_cond_init(roomMade, nil)
    }

    deinit {
        pthread_cond_destroy(roomMade)
        pthread_cond_destroy(fileQueued)
        pthread_mutex_destroy(mutex)
        roomMade.deallocate()
        fileQueued.deallocate()
        mutex.deallocate()
    }

    /// Queues `file` to be made with `contents`, once there is room; throws
    /// the first failure of a worker instead.
    func submit(_ file: NewFile, contents: [UInt8]) throws {
        if threads.isEmpty { try start() }
        try locked {
            while failure == nil, !hasRoom(for: contents.count) {
                wakeForQueued()
                pthread_cond_wait(roomMade, mutex)
            }
            if let failure { throw failure.error }
            queue[(head + queuedCount) % Self.maxFiles] = Queued(sequence: nextSequence, file: file, contents: contents)
            queuedCount += 1
            nextSequence += 1
            filesInFlight += 1
            bytesInFlight += contents.count
            if idleWorkers > 0, queuedCount >= Self.wakeBatch { pthread_cond_signal(fileQueued) }
        }
    }

    /// Wakes the workers for what is queued, however little, before this
    /// thread turns to long work of its own or waits.
    func wake() {
        locked { wakeForQueued() }
    }

    /// Throws the first failure of a worker, if there was one.
    func checkFailure() throws {
        guard failed.load(ordering: .relaxed) else { return }
        if let failure = locked({ failure }) { throw failure.error }
    }

    /// Waits until every file submitted is made (before a hard link to one
    /// of them, or the end); throws the first failure instead.
    func waitUntilDone() throws {
        try locked {
            while failure == nil, filesInFlight > 0 {
                wakeForQueued()
                pthread_cond_wait(roomMade, mutex)
            }
            if let failure { throw failure.error }
        }
    }

    /// Waits until every file is made and the threads have ended; throws
    /// the first failure.
    func finish() throws {
        try waitUntilDone()
        end()
    }

    /// Stops the workers after `error` and waits for them to end, dropping
    /// what is queued. Returns the error to report: a worker's failure,
    /// which is about an earlier entry, or else `error`.
    func stop(after error: any Error) -> any Error {
        end()
        return locked { failure?.error } ?? error
    }

    /// Drops what is queued, lets the files being written finish, and joins the threads.
    private func end() {
        locked {
            stopping = true
            for index in queue.indices { queue[index] = nil }
            queuedCount = 0
            pthread_cond_broadcast(fileQueued)
        }
        for thread in threads { pthread_join(thread, nil) }
        threads.removeAll()
    }

    /// Wakes the sleeping workers when files are queued; under the lock.
    private func wakeForQueued() {
        if queuedCount > 0, idleWorkers > 0 { pthread_cond_broadcast(fileQueued) }
    }

    /// Whether `size` more bytes may be queued: within both bounds, or
    /// alone in flight.
    private func hasRoom(for size: Int) -> Bool {
        filesInFlight == 0 || (filesInFlight < Self.maxFiles && bytesInFlight + size <= Self.maxBytes)
    }

    private func start() throws {
        for _ in 0..<workerCount {
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let status = pthread_create(&thread, nil, { context in
                Unmanaged<FileWorkers>.fromOpaque(context!).takeRetainedValue().work()
                return nil
            }, context)
            guard status == 0 else {
                Unmanaged<FileWorkers>.fromOpaque(context).release()
                throw ArchiveError(.io, archive: archive, message: "cannot start a thread: pthread_create failed: \(String(cString: strerror(status)))")
            }
            threads.append(thread)
        }
    }

    /// A worker's loop: makes the next queued file until told to stop or
    /// until a file fails.
    private func work() {
        var made: (file: Queued, error: ArchiveError?)?
        while let next = take(after: made) {
            do throws(FileWrapperError) {
                try make(next.file, contents: next.contents)
                made = (next, nil)
            } catch {
                made = (next, ArchiveError(.io, archive: archive, entry: next.file.entry, message: error.description))
            }
        }
    }

    /// Counts the file just `made` out of what is in flight (keeping the
    /// earliest failure, and waking the unpack's thread when it may go on),
    /// then takes the next file to make; nil once stopping or after a failure.
    private func take(after made: (file: Queued, error: ArchiveError?)?) -> Queued? {
        locked {
            if let made { count(made.file, error: made.error) }
            while queuedCount == 0, !stopping, failure == nil {
                idleWorkers += 1
                pthread_cond_wait(fileQueued, mutex)
                idleWorkers -= 1
            }
            guard !stopping, failure == nil else { return nil }
            let next = queue[head]
            queue[head] = nil
            head = (head + 1) % Self.maxFiles
            queuedCount -= 1
            return next
        }
    }

    /// Counts `file` out of what is in flight under the lock.
    private func count(_ file: Queued, error: ArchiveError?) {
        filesInFlight -= 1
        bytesInFlight -= file.contents.count
        if let error, failure.map({ file.sequence < $0.sequence }) ?? true {
            failure = (file.sequence, error)
            failed.store(true, ordering: .relaxed)
            pthread_cond_broadcast(fileQueued)
        }
        if error != nil || (filesInFlight <= Self.maxFiles / 2 && bytesInFlight <= Self.maxBytes / 2) {
            pthread_cond_signal(roomMade)
        }
    }

    /// Creates `file`, writes `contents` and sets its mode and time.
    private func make(_ file: NewFile, contents: [UInt8]) throws(FileWrapperError) {
        let path = { PathDisplay.join(self.destination, file.names) }
        let fd = try file.create(path: path)
        defer { Syscall.close(fd) }
        try contents.withUnsafeBytes { bytes in
            Result { () throws(FileWrapperError) in try Syscall.writeAll(bytes, to: fd, path: path) }
        }.get()
        try file.finish(fd, path: path)
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
