import Foundation
import Glibc
import Synchronization

/// The entries of a directory tree on disk, read on every core.
///
/// Each worker walks whole subtrees depth first through a
/// ``DirectoryCursor`` of its own and hashes each regular file where it
/// finds it: opened relative to its directory, `fstat` for its entry,
/// `flistxattr` for its attributes, and for a small file one `read`. So a
/// file costs a handful of system calls and no path lookup, and no list of
/// files waits for a second pass. Work is shared through a queue: files
/// larger than a block go there (still open), so that every core hashes
/// one; and while another worker is idle, a worker hands over (open) the
/// subdirectory still to enter that is nearest its subtree's root, as long
/// as it keeps one itself.
final class DiskTreeWalk: @unchecked Sendable {
    /// Work waiting in the queue; each holds an open descriptor.
    fileprivate enum Job {
        /// A directory whose entry and subtree are still to be read, and its path below the root.
        case directory(fd: CInt, path: [UInt8])
        /// A regular file still to be hashed, and its entry.
        case file(fd: CInt, entry: ManifestEntry)
    }

    /// Files at most waiting in the queue, each an open descriptor; more
    /// are hashed by the worker that found them.
    private static let maximumQueuedFiles = 16

    private let reader: DiskManifestReader
    /// Guards every `var` below.
    private let condition = WorkerCondition()
    private var jobs: [Job] = []
    private var queuedFiles = 0
    /// Workers running a job.
    private var busy = 0
    private var failure: FileWrapperError?
    private var chunks: [EntryChunk] = []
    private var entryCount = 0
    private var unreadable: [UnreadableEntry] = []
    /// Workers waiting for a job, less the jobs queued for them: read
    /// without the lock, to decide whether to hand a subdirectory over.
    private let shortfall = Atomic<Int>(0)
    private let failed = Atomic<Bool>(false)

    init(reader: DiskManifestReader) {
        self.reader = reader
    }

    /// Every entry of the directory `fd` (which the walk takes over and
    /// closes) and below it, the directory itself with the empty path, in
    /// no particular order, and those that could not be read whole (only
    /// with ``DiskManifestReader/keepsUnreadable``; see
    /// ``DiskWalkWorker/isEntrysOwn(_:)``). Throws the first failure of
    /// any worker.
    func entries(below fd: CInt) throws(FileWrapperError) -> (entries: [ManifestEntry], unreadable: [UnreadableEntry]) {
        give(directory: fd, path: [])
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        WorkerThreads.perform(iterations: workers) { _ in
            var worker = DiskWalkWorker(walk: self, reader: reader)
            worker.run()
        }
        for job in jobs {
            switch job {
            case .directory(let fd, _), .file(let fd, _): Syscall.close(fd)
            }
        }
        if let failure { throw failure }
        // Each chunk is moved in and freed in turn, so that the entries
        // are never in memory twice.
        let entries = Array(raceFreeUninitializedCapacity: entryCount) { buffer, count in
            while let chunk = chunks.popLast() {
                count += chunk.moveEntries(to: buffer.baseAddress! + count)
            }
        }
        return (entries, unreadable)
    }

    /// The next job for a worker, waiting while other workers may still
    /// queue one; `nil` when all the work is done or has failed.
    fileprivate func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil {
            if let job = jobs.popLast() {
                busy += 1
                shortfall.add(1, ordering: .relaxed)
                if case .file = job { queuedFiles -= 1 }
                return job
            }
            if busy == 0 {
                condition.broadcast()
                return nil
            }
            shortfall.add(1, ordering: .relaxed)
            condition.wait()
            shortfall.subtract(1, ordering: .relaxed)
        }
        return nil
    }

    /// Ends a job that ``next()`` gave.
    fileprivate func finished() {
        condition.lock()
        defer { condition.unlock() }
        busy -= 1
        if busy == 0 { condition.broadcast() }
    }

    /// Adds a chunk of entries a worker has read.
    fileprivate func add(_ chunk: EntryChunk) {
        condition.lock()
        defer { condition.unlock() }
        entryCount += chunk.count
        chunks.append(chunk)
    }

    /// Notes that the entry at `path` could not be read whole.
    fileprivate func markUnreadable(_ path: [UInt8], error: FileWrapperError) {
        condition.lock()
        defer { condition.unlock() }
        unreadable.append(UnreadableEntry(path: path, error: error))
    }

    /// Whether a worker is waiting for a job that nobody has queued yet.
    fileprivate var wantsWork: Bool {
        shortfall.load(ordering: .relaxed) > 0
    }

    fileprivate var hasFailed: Bool {
        failed.load(ordering: .relaxed)
    }

    /// Queues the open directory `fd` for another worker.
    fileprivate func give(directory fd: CInt, path: [UInt8]) {
        condition.lock()
        defer { condition.unlock() }
        jobs.append(.directory(fd: fd, path: path))
        shortfall.subtract(1, ordering: .relaxed)
        condition.signal()
    }

    /// Queues the open regular file `fd` for any worker to hash; `false`,
    /// with nothing queued, when enough files wait already.
    fileprivate func give(file fd: CInt, entry: ManifestEntry) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard queuedFiles < Self.maximumQueuedFiles else { return false }
        queuedFiles += 1
        jobs.append(.file(fd: fd, entry: entry))
        shortfall.subtract(1, ordering: .relaxed)
        condition.signal()
        return true
    }

    /// Keeps the first failure and stops every worker.
    fileprivate func fail(_ error: FileWrapperError) {
        condition.lock()
        defer { condition.unlock() }
        if failure == nil { failure = error }
        failed.store(true, ordering: .relaxed)
        condition.broadcast()
    }
}

/// Entries read by one worker, in storage of a fixed size that is
/// allocated once and whose entries are moved, not copied, into the
/// manifest's array.
private final class EntryChunk: @unchecked Sendable {
    static let capacity = 1024

    private let storage = UnsafeMutablePointer<ManifestEntry>.allocate(capacity: capacity)
    private(set) var count = 0

    var isFull: Bool { count == Self.capacity }

    func append(_ entry: consuming ManifestEntry) {
        (storage + count).initialize(to: consume entry)
        count += 1
    }

    /// Moves the entries to uninitialized memory at `target` and returns
    /// how many there were; the chunk is left empty.
    func moveEntries(to target: UnsafeMutablePointer<ManifestEntry>) -> Int {
        let moved = count
        target.moveInitialize(from: storage, count: moved)
        count = 0
        return moved
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }
}

/// One thread of a ``DiskTreeWalk``: takes jobs until there are none,
/// gathering the entries it reads in chunks, which it adds to the walk's
/// as they fill.
private struct DiskWalkWorker: ~Copyable {
    let walk: DiskTreeWalk
    let reader: DiskManifestReader
    /// Each file's contents, a block at a time.
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ContentHashing.blockSize, alignment: 64)
    var chunk = EntryChunk()

    init(walk: DiskTreeWalk, reader: DiskManifestReader) {
        self.walk = walk
        self.reader = reader
    }

    deinit {
        buffer.deallocate()
    }

    mutating func run() {
        while let job = walk.next() {
            do throws(FileWrapperError) {
                switch job {
                case .directory(let fd, let path): try readSubtree(fd, path: path)
                case .file(let fd, let entry): try hash(fd, entry)
                }
            } catch {
                walk.fail(error)
            }
            walk.finished()
        }
        walk.add(chunk)
    }

    /// Gathers `entry`, handing a full chunk to the walk and starting the next.
    private mutating func add(_ entry: consuming ManifestEntry) {
        chunk.append(entry)
        guard chunk.isFull else { return }
        walk.add(chunk)
        chunk = EntryChunk()
    }

    /// A walk of one subtree: each directory's context is its path below
    /// the root, its children to visit the names of its subdirectories.
    private typealias Subtree = DirectoryWalk<[UInt8], [UInt8]>

    /// Reads the directory `fd`, which it takes over, and everything below it.
    private mutating func readSubtree(_ fd: CInt, path: [UInt8]) throws(FileWrapperError) {
        let cursor = try DirectoryCursor(root: fd, path: displayPath(path))
        try addDirectory(path, info: try Syscall.status(of: fd, path: { cursor.path() }), fd: fd, cursor: cursor)
        var subtree = Subtree(cursor: cursor)
        subtree.push(path, children: try readListing(cursor, path: path))
        while !walk.hasFailed {
            if walk.wantsWork {
                try share(&subtree)
            }
            guard let (name, parentPath) = try subtree.next() else { break }
            let childPath = Self.join(parentPath, name)
            let info: stat
            do throws(FileWrapperError) {
                info = try subtree.enter(name)
            } catch where isEntrysOwn(error) {
                try addUnreadable(name, in: cursor.current, path: childPath, cursor: cursor, error: error)
                continue
            }
            try addDirectory(childPath, info: info, fd: cursor.current, cursor: cursor)
            subtree.push(childPath, children: try readListing(cursor, path: childPath))
        }
    }

    /// Whether `error`, met opening or reading one entry, is that entry's
    /// alone, so that the walk marks it and goes on: only for
    /// ``DiskManifestReader/keepsUnreadable``, and only for a denied
    /// permission (`EACCES`, `EPERM`) or a damaged disk (`EIO`), as
    /// `ls -R` and `find` go on. Other failures end the walk.
    private func isEntrysOwn(_ error: FileWrapperError) -> Bool {
        guard reader.keepsUnreadable, let code = error.errno else { return false }
        return code == .permissionDenied || code == .notPermitted || code == .ioError
    }

    /// Adds the entry of `name` in `directory`, which could not be read
    /// whole, from what `fstatat` says of it, and marks it with `error`;
    /// throws `error` when not even that can be had.
    private mutating func addUnreadable(
        _ name: [UInt8], in directory: CInt, path: [UInt8], cursor: DirectoryCursor, error: FileWrapperError
    ) throws(FileWrapperError) {
        guard let info = try? Syscall.status(ofBytes: name, in: directory, path: { cursor.path(bytes: name) }) else { throw error }
        add(DiskManifestReader.entry(path: path, info: info))
        walk.markUnreadable(path, error: error)
    }

    /// ``readDirectory(_:path:)``, but a directory whose entries cannot be
    /// listed is marked with its error, when that is its own, and has none.
    private mutating func readListing(_ cursor: DirectoryCursor, path: [UInt8]) throws(FileWrapperError) -> [[UInt8]] {
        do throws(FileWrapperError) {
            return try readDirectory(cursor, path: path)
        } catch where isEntrysOwn(error) {
            walk.markUnreadable(path, error: error)
            return []
        }
    }

    /// Hands a waiting worker, open, the subdirectory still to enter that
    /// is nearest the root, which likely holds the most work
    /// (``DirectoryWalk/handOver()``).
    private mutating func share(_ subtree: inout Subtree) throws(FileWrapperError) {
        guard let (name, parentPath, parent) = subtree.handOver() else { return }
        let path = Self.join(parentPath, name)
        let fd: CInt
        do throws(FileWrapperError) {
            fd = try DirectoryListing.openSubdirectory(name, in: parent, path: { displayPath(path) })
        } catch where isEntrysOwn(error) {
            return try addUnreadable(name, in: parent, path: path, cursor: subtree.cursor, error: error)
        }
        walk.give(directory: fd, path: path)
    }

    /// Adds the entry of the open directory `fd`, the cursor's current one.
    private mutating func addDirectory(_ path: [UInt8], info: stat, fd: CInt, cursor: DirectoryCursor) throws(FileWrapperError) {
        var entry = DiskManifestReader.entry(path: path, info: info)
        entry.extendedAttributes = try DiskManifestReader.bytes(ExtendedAttributes.readNamed(.descriptor(fd), displayPath: { cursor.path() }))
        add(entry)
    }

    /// Adds the entries of the directory at the cursor, but for its
    /// subdirectories, whose names it returns: their entries are read when
    /// they are entered.
    private mutating func readDirectory(_ cursor: DirectoryCursor, path directoryPath: [UInt8]) throws(FileWrapperError) -> [[UInt8]] {
        let fd = cursor.current
        var subdirectories: [[UInt8]] = []
        var count = 0
        try Syscall.forEachName(inDirectory: fd, path: { cursor.path() }) { (name, type) throws(FileWrapperError) in
            count += 1
            switch Int(type) {
            case DT_DIR:
                subdirectories.append(Array(name))
            case DT_REG where reader.hashingContents:
                do throws(FileWrapperError) {
                    try readFile(name, in: fd, directoryPath: directoryPath, cursor: cursor, subdirectories: &subdirectories)
                } catch where isEntrysOwn(error) {
                    try addUnreadable(Array(name), in: fd, path: Self.join(directoryPath, name), cursor: cursor, error: error)
                }
            default:
                try readListed(Array(name), in: fd, directoryPath: directoryPath, cursor: cursor, mayOpen: true, subdirectories: &subdirectories)
            }
        }
        reader.progress?.count(entries: count)
        return subdirectories
    }

    /// Opens the regular file `name` (bytes followed by a NUL) and adds its
    /// entry with its digest, or queues it for hashing when it is larger
    /// than a block. A name that is no longer a regular file by the time it
    /// is opened is read for what it has become.
    private mutating func readFile(
        _ name: UnsafeBufferPointer<UInt8>, in directory: CInt, directoryPath: [UInt8], cursor: DirectoryCursor,
        subdirectories: inout [[UInt8]]
    ) throws(FileWrapperError) {
        let path = { cursor.path(bytes: Array(name)) }
        let cName = UnsafeRawPointer(name.baseAddress!).assumingMemoryBound(to: CChar.self)
        guard let (fd, info) = try DirectoryListing.openListedFile(cName, in: directory, path: path) else {
            // A symbolic link, or a socket, now.
            return try readListed(Array(name), in: directory, directoryPath: directoryPath, cursor: cursor, mayOpen: false, subdirectories: &subdirectories)
        }
        var queued = false
        defer { if !queued { Syscall.close(fd) } }
        guard FileKind(mode: info.st_mode) == .regularFile else {
            return try readListed(Array(name), in: directory, directoryPath: directoryPath, cursor: cursor, mayOpen: false, subdirectories: &subdirectories)
        }
        var entry = DiskManifestReader.entry(path: Self.join(directoryPath, name), info: info)
        entry.extendedAttributes = try DiskManifestReader.bytes(ExtendedAttributes.readNamed(.descriptor(fd), displayPath: path))
        if info.st_size > ContentHashing.blockSize, walk.give(file: fd, entry: entry) {
            queued = true
            return
        }
        entry.contentDigest = try ContentHashing.digest(of: fd, size: Int64(info.st_size), buffer: buffer, progress: reader.progress, path: path)
        add(entry)
    }

    /// Adds the entry of `name` from `fstatat`, without opening it (but for
    /// a regular file to hash, with `mayOpen`); a directory's name goes to
    /// `subdirectories` instead.
    private mutating func readListed(
        _ name: [UInt8], in directory: CInt, directoryPath: [UInt8], cursor: DirectoryCursor, mayOpen: Bool,
        subdirectories: inout [[UInt8]]
    ) throws(FileWrapperError) {
        let path = { cursor.path(bytes: name) }
        let info = try Syscall.status(ofBytes: name, in: directory, path: path)
        var entry = DiskManifestReader.entry(path: Self.join(directoryPath, name), info: info)
        switch entry.kind {
        case .directory:
            subdirectories.append(name)
            return
        case .file where reader.hashingContents:
            guard mayOpen else {
                throw FileWrapperError(.changedOnDisk, path: path(), detail: "the file was replaced while the tree was read")
            }
            try Syscall.withCName(name) { cName throws(FileWrapperError) in
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self), count: name.count)
                try readFile(bytes, in: directory, directoryPath: directoryPath, cursor: cursor, subdirectories: &subdirectories)
            }
            return
        case .file:
            entry.extendedAttributes = try DiskManifestReader.bytes(ExtendedAttributes.readNamed(bytes: name, in: directory, path: path))
        case .symlink:
            entry.linkTarget = try Syscall.symbolicLinkTarget(ofBytes: name, in: directory, path: path)
        case .hardLink, .other:
            break
        }
        add(entry)
    }

    /// Hashes a file another worker queued, and adds its entry.
    private mutating func hash(_ fd: CInt, _ file: ManifestEntry) throws(FileWrapperError) {
        defer { Syscall.close(fd) }
        var entry = file
        do throws(FileWrapperError) {
            entry.contentDigest = try ContentHashing.digest(
                of: fd, size: entry.size ?? 0, buffer: buffer, progress: reader.progress, path: { displayPath(entry.path) })
        } catch where isEntrysOwn(error) {
            walk.markUnreadable(entry.path, error: error)
        }
        add(entry)
    }

    /// The path of an entry for errors: the root as given, then the entry's path.
    private func displayPath(_ path: [UInt8]) -> String {
        PathDisplay.join(reader.root, path.isEmpty ? [] : [PathDisplay.text(path)])
    }

    private static func join(_ directory: [UInt8], _ name: some Collection<UInt8>) -> [UInt8] {
        guard !directory.isEmpty else { return Array(name) }
        var path: [UInt8] = []
        path.reserveCapacity(directory.count + 1 + name.count)
        path.append(contentsOf: directory)
        path.append(ManifestPath.separator)
        path.append(contentsOf: name)
        return path
    }
}
