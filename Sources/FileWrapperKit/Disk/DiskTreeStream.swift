import Foundation
import Glibc

/// One entry of a tree on disk, as ``DiskTreeStream`` gives it.
package struct DiskTreeEntry {
    /// The path below the root, names joined with `/`.
    package var path: String
    package var kind: FileKind
    package var permissions: UInt16
    package var modified: FileTimestamp
    package var owner: FileOwner
    /// A regular file's size when the walk found it; its contents have
    /// exactly this many bytes, or reading them throws.
    package var size: Int
    package var linkTarget: [UInt8]?
    /// A regular file's contents, read ahead or opened.
    package var contents: DiskFileContents?
}

/// A regular file's contents from ``DiskTreeStream``: small files already
/// read, larger ones open and checked to be the file the walk found.
/// Frees its buffer or closes its descriptor when it goes.
package final class DiskFileContents: @unchecked Sendable {
    /// The buffer holding a small file's bytes (its first `size`).
    private let buffer: UnsafeMutableRawBufferPointer?
    private let fd: CInt
    private let size: Int
    /// What the walk found the open file to be, to check after reading it.
    private let identity: FileIdentity?
    /// The file's path for errors.
    private let path: String

    /// Takes ownership of `buffer`, which holds (or will) `count` bytes.
    fileprivate init(buffer: UnsafeMutableRawBufferPointer, count: Int, path: String) {
        self.buffer = buffer
        fd = -1
        size = count
        identity = nil
        self.path = path
    }

    /// Takes ownership of `fd`, open on the file the walk found as `identity`.
    fileprivate init(fd: CInt, identity: FileIdentity, path: String) {
        buffer = nil
        self.fd = fd
        size = Int(identity.size)
        self.identity = identity
        self.path = path
    }

    deinit {
        buffer?.deallocate()
        if fd >= 0 { Syscall.close(fd) }
    }

    /// What the stream counts against its read-ahead budget: the bytes
    /// held, or a block for an open file.
    fileprivate var footprint: Int { buffer == nil ? DiskTreeStream.blockSize : size }

    /// `length` bytes at each of `offsets` (fewer where the file ends),
    /// read ahead of ``forEachBlock(_:)`` with `pread`, for a writer that
    /// judges the whole file from samples before it streams it.
    package func samples(at offsets: [Int], length: Int) throws -> [[UInt8]] {
        try offsets.map { offset in
            let count = max(0, min(length, size - offset))
            if let buffer { return Array(buffer[offset..<offset + count]) }
            return try [UInt8](raceFreeUninitializedCapacity: count) { bytes, filled in
                filled = try Syscall.read(fd, at: offset, into: UnsafeMutableRawBufferPointer(bytes), path: { self.path })
            }
        }
    }

    /// Passes the contents to `body` in blocks of at most 256 KiB; throws if
    /// the file changed (size, modification time or mode, `fstat` once it
    /// is read) from what the walk found, as GNU tar says "file changed as
    /// we read it": the archive would hold bytes of no one version.
    package func forEachBlock(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let buffer {
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<size]))
            return
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: DiskTreeStream.blockSize, alignment: 16)
        defer { buffer.deallocate() }
        var remaining = size
        while remaining > 0 {
            let count = try Syscall.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, remaining)]), path: { self.path })
            guard count > 0 else {
                throw FileWrapperError(.changedOnDisk, path: path, detail: "the file became shorter while it was read")
            }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            remaining -= count
        }
        try identity?.checkUnchanged(fd, path: { self.path })
    }
}

/// Walks a tree on disk through directory descriptors and gives its entries
/// in archive order, depth first, each directory's entries sorted by the
/// bytes of their names, a directory before what it holds.
///
/// The walk runs on a thread of its own and reads small files ahead, up to
/// ``readAheadBudget`` bytes, while the caller writes what it already has:
/// packing a tree of many small files then keeps two cores busy, one in
/// `openat`/`read`, the other writing the archive. Files above
/// ``readAheadLimit`` are only opened ahead and streamed by the caller, so
/// memory stays flat whatever the files' sizes.
///
/// Refused, as `FileWrapper(url:)` refuses them: names that are not UTF-8,
/// two canonically equivalent names in one directory, device nodes, FIFOs
/// and sockets, and a file that changed between the walk and its reading.
package final class DiskTreeStream: @unchecked Sendable {
    package static let blockSize = 256 << 10
    static let readAheadLimit = 256 << 10
    static let readAheadBudget = 1 << 20
    static let maximumQueued = 4096
    /// Entries queued before the waiting caller is woken, unless the walk
    /// turns to a directory's listing or must wait itself first: a wake for
    /// each entry costs both threads more than the entry.
    static let wakeBatch = 64

    private let condition = WorkerCondition()
    // Guarded by `condition`.
    private var queue: [DiskTreeEntry] = []
    private var head = 0
    private var queuedBytes = 0
    /// Whether the caller waits for an entry, and the walk for room.
    private var callerWaits = false
    private var walkWaits = false
    private var walkError: Error?
    private var walkEnded = false
    private var stopped = false

    private let root: String
    private let firstName: String?
    private let excluded: [DiskTreeStream.Identity]

    private init(root: String, firstName: String?, excluded: [DiskTreeStream.Identity]) {
        self.root = root
        self.firstName = firstName
        self.excluded = excluded
    }

    /// A file's device and inode numbers.
    package struct Identity: Equatable {
        package var device: UInt64
        package var inode: UInt64

        package init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// Walks the directory at `root` while `body` takes its entries with
    /// ``next()``; with `firstName`, that top-level entry comes first. A
    /// `root` that is a file or a symlink is the one entry, named by its
    /// last path component. Files that are one of `excluded` (an archive
    /// being written into the tree, and the one it replaces) are passed
    /// over unread. The walk's thread has ended when this returns.
    package static func walk<Result>(
        root: String, firstName: String? = nil, excluding excluded: [Identity] = [], _ body: (DiskTreeStream) throws -> Result
    ) throws -> Result {
        let stream = DiskTreeStream(root: root, firstName: firstName, excluded: excluded)
        var threads = WorkerThreads()
        try threads.start { stream.walk() }
        defer {
            stream.stop()
            threads.joinAll()
        }
        return try body(stream)
    }

    /// The next entry, or `nil` after the last; throws what the walk met.
    package func next() throws -> DiskTreeEntry? {
        condition.lock()
        defer { condition.unlock() }
        while head == queue.count, !walkEnded {
            callerWaits = true
            condition.wait()
            callerWaits = false
        }
        if head == queue.count {
            if let walkError { throw walkError }
            return nil
        }
        let entry = queue[head]
        queue[head].contents = nil
        head += 1
        queuedBytes -= entry.contents?.footprint ?? 0
        if head == queue.count || head > Self.maximumQueued {
            queue.removeFirst(head)
            head = 0
        }
        if walkWaits, queue.count - head <= Self.maximumQueued / 2, queuedBytes <= Self.readAheadBudget / 2 {
            condition.broadcast()
        }
        return entry
    }

    /// Stops the walk and waits until its thread has let go of everything.
    private func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while !walkEnded {
            condition.wait()
        }
        queue.removeAll()
        condition.unlock()
    }

    // MARK: The walk, on its own thread

    /// Hands `entry` over, waiting while the queue is full; returns `false`
    /// once the caller has stopped.
    private func deliver(_ entry: DiskTreeEntry) -> Bool {
        let footprint = entry.contents?.footprint ?? 0
        condition.lock()
        defer { condition.unlock() }
        while !stopped, queue.count - head >= Self.maximumQueued || (queuedBytes > 0 && queuedBytes + footprint > Self.readAheadBudget) {
            if callerWaits { condition.broadcast() }
            walkWaits = true
            condition.wait()
            walkWaits = false
        }
        guard !stopped else { return false }
        queue.append(entry)
        queuedBytes += footprint
        if callerWaits, queue.count - head >= Self.wakeBatch || queuedBytes >= Self.readAheadBudget / 2 {
            condition.broadcast()
        }
        return true
    }

    /// Wakes the caller if it waits while entries are queued, before the
    /// walk turns to work that may take long.
    private func wakeCaller() {
        condition.lock()
        if callerWaits, head < queue.count { condition.broadcast() }
        condition.unlock()
    }

    private func walk() {
        var error: Error?
        do {
            try walkTree()
        } catch let caught {
            error = caught
        }
        condition.lock()
        walkError = error
        walkEnded = true
        condition.broadcast()
        condition.unlock()
    }

    /// A directory's entry to visit: its name, as a key and as bytes
    /// followed by a NUL, and what `lstat` said but for a regular file,
    /// which is opened and `fstat`ed instead (one path lookup a file, where
    /// the kernel spends most of a pack's time).
    private struct Child {
        var name: String
        var cName: [UInt8]
        var info: stat?

        /// The name's bytes, without the NUL.
        var bytes: [UInt8] { Array(cName.dropLast()) }
    }

    private func walkTree() throws {
        let info = try Syscall.status(of: root, in: AT_FDCWD, path: { self.root })
        guard FileKind(mode: info.st_mode) == .directory else {
            let (parent, name) = TreeReader.split(root)
            let parentFd = try Syscall.open(parent, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parent })
            defer { Syscall.close(parentFd) }
            if let entry = try entry(Child(name: name, cName: Array(name.utf8) + [0], info: info), path: name, in: parentFd, display: { self.root }) {
                _ = deliver(entry)
            }
            return
        }
        // The context of a directory: its path below the root, with a
        // trailing slash (empty at the root).
        var walk = try DirectoryWalk<String, Child>(root: root)
        let cursor = walk.cursor
        walk.push("", children: try children(at: cursor, first: firstName))
        while let (child, prefix) = try walk.next() {
            let path = prefix + child.name
            guard let entry = try entry(child, path: path, in: cursor.current, display: { cursor.path(child.name) }) else { continue }
            guard deliver(entry) else { return }
            if entry.kind == .directory {
                try walk.enter(child.bytes)
                wakeCaller()
                walk.push(path + "/", children: try children(at: cursor, first: nil))
            }
        }
    }

    /// The entries of the directory at the cursor, in reverse order of name
    /// bytes (so that popping gives them sorted), `first` popping first.
    private func children(at cursor: DirectoryCursor, first: String?) throws -> [Child] {
        let fd = cursor.current
        var keys = DirectoryListing.StringNames(at: cursor)
        var children: [Child] = []
        try Syscall.forEachName(inDirectory: fd, path: { cursor.path() }) { (buffer, type) throws(FileWrapperError) in
            let bytes = Array(buffer)
            let name = try keys.key(bytes)
            let info = Int(type) == DT_REG ? nil : try Syscall.status(ofBytes: bytes, in: fd, path: { cursor.path(bytes: bytes) })
            children.append(Child(name: name, cName: Array(UnsafeBufferPointer(start: buffer.baseAddress, count: buffer.count + 1)), info: info))
        }
        children.sort { $0.cName.lexicographicallyPrecedes($1.cName) }
        if let first, let index = children.firstIndex(where: { $0.name == first }) {
            children.insert(children.remove(at: index), at: 0)
        }
        return children.reversed()
    }

    /// The entry for `child` of the directory `directory`, its contents
    /// read ahead or opened; nil for an excluded file.
    private func entry(_ child: Child, path: String, in directory: CInt, display: @escaping Syscall.Path) throws -> DiskTreeEntry? {
        var opened: (fd: CInt, info: stat)?
        if child.info == nil {
            opened = try child.cName.withUnsafeBufferPointer { cName throws(FileWrapperError) in
                try cName.withMemoryRebound(to: CChar.self) { cName throws(FileWrapperError) in
                    try DirectoryListing.openListedFile(cName.baseAddress!, in: directory, path: display)
                }
            }
        }
        defer { if let opened { Syscall.close(opened.fd) } }
        let info: stat
        if let listed = child.info {
            info = listed
        } else if let opened {
            info = opened.info
        } else {
            info = try Syscall.status(of: child.name, in: directory, path: display)
        }
        if !excluded.isEmpty, FileKind(mode: info.st_mode) == .regularFile, excluded.contains(Identity(info)) { return nil }
        var entry = DiskTreeEntry(
            path: path, kind: .regularFile, permissions: UInt16(info.st_mode & 0o7777),
            modified: FileTimestamp(info.st_mtim), owner: FileOwner(userID: info.st_uid, groupID: info.st_gid),
            size: 0, linkTarget: nil, contents: nil)
        switch FileKind(mode: info.st_mode) {
        case .directory:
            entry.kind = .directory
        case .symbolicLink:
            entry.kind = .symbolicLink
            entry.linkTarget = try Syscall.symbolicLinkTarget(ofBytes: child.bytes, in: directory, path: display)
        case .regularFile:
            entry.size = Int(info.st_size)
            let fd: CInt
            if let file = opened {
                fd = file.fd
                opened = nil
            } else {
                fd = try openFile(child.name, in: directory, foundAs: info, display: display)
            }
            entry.contents = try contents(of: fd, foundAs: FileIdentity(info), display: display)
        case nil:
            throw FileWrapperError(
                .unsupportedFileType, path: display(),
                detail: "a device node, FIFO or socket cannot be held in a file wrapper")
        }
        return entry
    }

    /// Opens the regular file `name` that `fstatat` found as `info`, and
    /// checks that it is still that file.
    private func openFile(_ name: String, in directory: CInt, foundAs info: stat, display: @escaping Syscall.Path) throws -> CInt {
        let fd = try Syscall.open(name, in: directory, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, path: display)
        do {
            guard FileIdentity(try Syscall.status(of: fd, path: display)) == FileIdentity(info) else {
                throw FileWrapperError(.changedOnDisk, path: display(), detail: "the file changed while it was read")
            }
            return fd
        } catch {
            Syscall.close(fd)
            throw error
        }
    }

    /// The contents of the open file `fd`, found as `identity`, taking the
    /// descriptor: read whole, checked unchanged and closed when the file
    /// is small, kept open for the caller to stream otherwise.
    private func contents(of fd: CInt, foundAs identity: FileIdentity, display: @escaping Syscall.Path) throws -> DiskFileContents {
        let size = Int(identity.size)
        guard size > Self.readAheadLimit else {
            defer { Syscall.close(fd) }
            // One byte more than expected tells a file that grew.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size + 1, alignment: 16)
            let contents = DiskFileContents(buffer: buffer, count: size, path: display())
            guard try Self.read(fd, into: buffer, expecting: size, display: display) else {
                throw FileWrapperError(.changedOnDisk, path: display(), detail: "the file changed size while it was read")
            }
            try identity.checkUnchanged(fd, path: display)
            return contents
        }
        return DiskFileContents(fd: fd, identity: identity, path: display())
    }

    /// Reads a file into `buffer`, one byte longer than the `size` it
    /// should have; returns whether it had exactly that size. A read of a
    /// regular file that comes back short has met the file's end, so a file
    /// of the expected size costs one `read`, not a second that returns 0.
    private static func read(
        _ fd: CInt, into buffer: UnsafeMutableRawBufferPointer, expecting size: Int, display: Syscall.Path
    ) throws(FileWrapperError) -> Bool {
        var filled = 0
        while filled < buffer.count {
            let count = try Syscall.retrying(.read, display) { Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled) }
            if count == 0 { break }
            filled += count
            if filled == size { break }
        }
        return filled == size
    }
}
