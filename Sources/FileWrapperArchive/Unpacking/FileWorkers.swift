import FileWrapperKit
import Glibc
import Synchronization

/// A regular file an unpack makes: where, and the mode and time it gets
/// once its bytes are written.
struct NewFile: Sendable {
    let directory: OpenDirectory
    let name: EntryName
    /// Its path below the destination, for errors.
    let names: [EntryName]
    /// The entry as the archive names it, for errors.
    let entry: String
    let mode: mode_t
    /// `Syscall.omitTime` keeps the time it was made.
    let modified: timespec
    /// Whether `openat` gives it `mode` itself: when the process's umask
    /// takes none of its bits, a `fchmod` a file is saved.
    let isCreatedWithMode: Bool

    init(directory: OpenDirectory, name: EntryName, names: [EntryName], entry: String, mode: mode_t, modified: timespec, umask: mode_t?) {
        self.directory = directory
        self.name = name
        self.names = names
        self.entry = entry
        self.mode = mode
        self.modified = modified
        isCreatedWithMode = umask.map { mode & $0 == 0 } ?? false
    }

    /// Creates it empty, with `openat(O_CREAT | O_EXCL | O_NOFOLLOW)`.
    func create(path: Syscall.Path) throws(FileWrapperError) -> CInt {
        try Syscall.open(name.text, in: directory.fd, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
                         mode: isCreatedWithMode ? mode : 0o600, path: path)
    }

    /// Gives the written file its mode, unless it was created with it, and
    /// its time (`fchmod`, `futimens`).
    func finish(_ fd: CInt, path: Syscall.Path) throws(FileWrapperError) {
        if !isCreatedWithMode { try Syscall.retrying(.fchmod, path) { fchmod(fd, mode) } }
        let times = [Syscall.omitTime, modified]
        try Syscall.retrying(.futimens, path) { futimens(fd, times) }
    }

    /// The process's umask, as the kernel shows it in /proc/self/status
    /// (Linux 4.7 on); nil where it does not. `umask(2)` cannot read it
    /// without setting it, racing the threads that create files meanwhile.
    static func processUmask() -> mode_t? {
        let fd = Syscall.invoke(.open) { Glibc.open("/proc/self/status", O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { Syscall.close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { buffer in Syscall.invoke(.read) { Glibc.read(fd, buffer.baseAddress, buffer.count) } }
        guard count > 0 else { return nil }
        let status = String(decoding: bytes[..<count], as: UTF8.self)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }) else { return nil }
        return mode_t(String(line.dropFirst("Umask:".count).filter { $0 != "\t" && $0 != " " }), radix: 8)
    }
}

/// Threads that make the small regular files of an unpack while its thread
/// goes on reading the archive, so that the kernel creates files on every
/// core (creating files is nearly all of the time of unpacking many small
/// ones).
///
/// Each worker has a lane of its own, and ``LaneChoice`` sends the files of
/// one directory to one lane. Two threads creating files in one
/// directory take turns on its lock: on 20,000 small files in 500 folders,
/// workers taking files in turn spent 8 % of the unpack's CPU time spinning
/// on it.
///
/// The unpack's thread asks for ``space(for:)``, reads a file's bytes into
/// it (or a small zip member's stored bytes, which the worker expands and
/// checks) and ``submit(_:contents:member:)``s the file. The space comes
/// from one buffer of ``capacity`` bytes, allocated once: files take it in
/// the order they are submitted and give it back in that order, so memory
/// stays flat whatever the files (an allocation a file, freed among the
/// tree's lasting ones, left the heap growing). At most ``maxFiles`` files
/// are in flight.
/// Workers take their lane's files in order; after the first failure they
/// take no more.
/// The threads start with the first file and end in ``finish()`` or
/// ``stop(after:)``, one of which must be called.
final class FileWorkers: @unchecked Sendable {
    /// The bytes of the files in flight, at most.
    static let capacity = 1 << 19
    /// Files larger than this are not handed to workers: the unpack's thread
    /// streams them, so that no whole large file is ever in memory.
    static let largeFile = capacity / 4
    /// Files in flight, at most: each may hold a directory descriptor that
    /// the unpack's cache has let go of.
    static let maxFiles = 256
    /// Files queued before a sleeping worker is woken, unless the unpack's
    /// thread waits or turns to long work first: one wake a file would cost
    /// that thread more than the file.
    static let wakeBatch = 16

    /// A file in flight: queued, being made, or made and waiting for the
    /// files before it to give back their space.
    private struct Slot {
        var file: NewFile
        var sequence: Int
        var lane: Int
        var start: Int
        var count: Int
        var member: ZipMember?
        var isMade = false
    }

    private let archive: String
    private let destination: String
    private let workerCount: Int
    private var threads = WorkerThreads()
    private let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 64)

    /// Guards everything after it. Its condition `lane` (one a lane) is
    /// signalled when files are queued for that lane's worker or the
    /// workers must stop; its condition ``roomMade`` when half of
    /// ``maxFiles`` and room for a file of ``largeFile`` bytes are free,
    /// when all is made, and on a failure.
    private let condition: WorkerCondition
    private var roomMade: Int { workerCount }
    /// A ring of `maxFiles` slots: `inFlight` files from `oldest` on.
    private var slots = [Slot?](repeating: nil, count: maxFiles)
    private var oldest = 0
    private var inFlight = 0
    /// Each lane's files queued and not taken yet, whether its worker
    /// sleeps, and the sequence number from which it looks for its next file.
    private var queued: [Int]
    private var isIdle: [Bool]
    private var cursors: [Int]
    private var laneChoice = LaneChoice()
    /// Where in `storage` the next file's bytes go, and where the oldest
    /// file's begin; both 0 when nothing is in flight.
    private var head = 0
    private var tail = 0
    /// Bytes of the files in flight.
    private var bytesHeld = 0
    private var nextSequence = 0
    /// The sequence number of the file in `oldest`: files in flight are
    /// numbered one after the other.
    private var oldestSequence: Int { nextSequence - inFlight }
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
        queued = Array(repeating: 0, count: workerCount)
        isIdle = Array(repeating: false, count: workerCount)
        cursors = Array(repeating: 0, count: workerCount)
        condition = WorkerCondition(conditions: workerCount + 1)
    }

    deinit {
        storage.deallocate()
    }

    /// Space for the `count` bytes (at most ``largeFile``) of the next file
    /// to submit, once there is room; throws the first failure of a worker
    /// instead. It stays the caller's until it submits a file or asks again.
    func space(for count: Int) throws -> UnsafeMutableRawBufferPointer {
        precondition(count <= Self.largeFile)
        if threads.isEmpty { try start() }
        return try locked {
            while true {
                if let failure { throw failure.error }
                if let start = freeStart(for: count) {
                    return UnsafeMutableRawBufferPointer(rebasing: storage[start..<(start + count)])
                }
                wakeForQueued()
                condition.wait(roomMade)
            }
        }
    }

    /// Queues `file` to be made with `contents`, bytes in the space that
    /// ``space(for:)`` gave last: the file's own, or the stored bytes of
    /// the zip `member` that it is.
    func submit(_ file: NewFile, contents: UnsafeRawBufferPointer, member: ZipMember? = nil) {
        let start = contents.baseAddress! - UnsafeRawPointer(storage.baseAddress!)
        locked {
            let lane = laneChoice.lane(for: ObjectIdentifier(file.directory), queued: queued)
            if inFlight == 0 { tail = start }
            slots[(oldest + inFlight) % Self.maxFiles] = Slot(
                file: file, sequence: nextSequence, lane: lane, start: start, count: contents.count, member: member)
            inFlight += 1
            queued[lane] += 1
            nextSequence += 1
            bytesHeld += contents.count
            head = start + contents.count
            if isIdle[lane], queued[lane] >= Self.wakeBatch { condition.signal(lane) }
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
            while failure == nil, inFlight > 0 {
                wakeForQueued()
                condition.wait(roomMade)
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

    /// Lets the files being made finish, joins the threads, and drops the rest.
    private func end() {
        locked {
            stopping = true
            wakeAll()
        }
        threads.joinAll()
        for index in slots.indices { slots[index] = nil }
        inFlight = 0
        for lane in queued.indices { queued[lane] = 0 }
    }

    /// Wakes the sleeping workers that have files queued; under the lock.
    private func wakeForQueued() {
        for lane in queued.indices where queued[lane] > 0 && isIdle[lane] {
            condition.signal(lane)
        }
    }

    /// Wakes every worker, to stop; under the lock.
    private func wakeAll() {
        for lane in 0..<workerCount { condition.signal(lane) }
    }

    /// Where `count` bytes fit in one piece after the newest file's: after
    /// it, or else at the start of `storage` before the oldest file's;
    /// nil when they do not, or when ``maxFiles`` are in flight.
    private func freeStart(for count: Int) -> Int? {
        guard inFlight < Self.maxFiles else { return nil }
        let wrapped = head < tail || (head == tail && bytesHeld > 0)
        if wrapped { return tail - head >= count ? head : nil }
        if storage.count - head >= count { return head }
        return tail >= count ? 0 : nil
    }

    private func start() throws {
        for lane in 0..<workerCount {
            do throws(WorkerThreads.Failure) {
                try threads.start { self.work(lane: lane) }
            } catch {
                throw ArchiveError(.io, archive: archive, message: "cannot start a thread: pthread_create failed: \(error)")
            }
        }
    }

    /// A worker's loop: makes the next file queued in its lane until told
    /// to stop or until a file fails.
    private func work(lane: Int) {
        var made: (slot: Int, error: ArchiveError?)?
        var expander: ZipMemberExpander?
        while let (slot, file, bytes, member) = take(in: lane, after: made) {
            do throws(ArchiveError) {
                let contents = if let member { try expand(member, stored: bytes, of: file, with: &expander) } else { bytes }
                try make(file, contents: contents)
                made = (slot, nil)
            } catch {
                made = (slot, error)
            }
        }
    }

    /// The contents of `file`, the zip `member` stored as `stored`, expanded
    /// and checked by the worker's `expander`, made at its first member.
    private func expand(
        _ member: ZipMember, stored: UnsafeRawBufferPointer, of file: NewFile, with expander: inout ZipMemberExpander?
    ) throws(ArchiveError) -> UnsafeRawBufferPointer {
        if expander == nil { expander = ZipMemberExpander(capacity: Self.largeFile) }
        guard let expander else {
            throw ArchiveError(.io, archive: archive, entry: file.entry, message: "could not allocate an inflate stream")
        }
        do throws(ZipMemberExpander.Damage) {
            return try expander.contents(of: member, stored: stored)
        } catch {
            throw ArchiveError(error.code, archive: archive, entry: file.entry, message: error.message)
        }
    }

    /// Counts the file just `made` out (keeping the earliest failure, giving
    /// back space, and waking the unpack's thread when it may go on), then
    /// takes the next file of `lane` to make; nil once stopping or after a
    /// failure.
    private func take(in lane: Int, after made: (slot: Int, error: ArchiveError?)?) -> (Int, NewFile, UnsafeRawBufferPointer, ZipMember?)? {
        locked {
            if let made { markMade(made.slot, error: made.error) }
            while queued[lane] == 0, !stopping, failure == nil {
                isIdle[lane] = true
                condition.wait(lane)
                isIdle[lane] = false
            }
            guard !stopping, failure == nil else { return nil }
            // The files before the cursor are made, or another lane's.
            var sequence = max(cursors[lane], oldestSequence)
            while true {
                let index = (oldest + sequence - oldestSequence) % Self.maxFiles
                let slot = slots[index]!
                sequence += 1
                guard slot.lane == lane else { continue }
                cursors[lane] = sequence
                queued[lane] -= 1
                return (index, slot.file, UnsafeRawBufferPointer(rebasing: storage[slot.start..<(slot.start + slot.count)]), slot.member)
            }
        }
    }

    /// Marks the file in `index` made, under the lock, and gives back the
    /// space of the oldest files while they are made.
    private func markMade(_ index: Int, error: ArchiveError?) {
        slots[index]!.isMade = true
        let sequence = slots[index]!.sequence
        if let error, failure.map({ sequence < $0.sequence }) ?? true {
            failure = (sequence, error)
            failed.store(true, ordering: .relaxed)
            wakeAll()
        }
        while inFlight > 0, let slot = slots[oldest], slot.isMade {
            bytesHeld -= slot.count
            slots[oldest] = nil
            oldest = (oldest + 1) % Self.maxFiles
            inFlight -= 1
        }
        if inFlight == 0 {
            head = 0
            tail = 0
        } else {
            tail = slots[oldest]!.start
        }
        if error != nil || (inFlight <= Self.maxFiles / 2 && freeStart(for: Self.largeFile) != nil) {
            condition.signal(roomMade)
        }
    }

    /// Creates `file`, writes `contents` and sets its mode and time.
    private func make(_ file: NewFile, contents: UnsafeRawBufferPointer) throws(ArchiveError) {
        let path = { PathDisplay.join(self.destination, file.names.map(\.text)) }
        do throws(FileWrapperError) {
            let fd = try file.create(path: path)
            defer { Syscall.close(fd) }
            try Syscall.writeAll(contents, to: fd, path: path)
            try file.finish(fd, path: path)
        } catch {
            throw ArchiveError(error, archive: archive, entry: file.entry)
        }
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        try condition.withLock(body)
    }
}

/// Which worker makes each file: the files of one directory go to one lane,
/// up to ``runLength`` in a row, and the next directory's to the lane with
/// the fewest files waiting, another than the last on a tie.
struct LaneChoice {
    /// Files of one directory given to one lane in a row, before the next
    /// ones may go to another: a large directory is still made on every core.
    static let runLength = 64

    private var lane = 0
    private var directory: ObjectIdentifier?
    private var run = 0

    /// The lane of the next file, in `directory`, when `queued` files wait
    /// in each lane.
    mutating func lane(for directory: ObjectIdentifier, queued: [Int]) -> Int {
        if directory != self.directory || run == Self.runLength {
            var best = (lane + 1) % queued.count
            for candidate in queued.indices where queued[candidate] < queued[best] { best = candidate }
            lane = best
            self.directory = directory
            run = 0
        }
        run += 1
        return lane
    }
}
