import CFileSystem
import Foundation
import Glibc
import SystemPackage

/// The one funnel through which FileWrapperKit calls the system.
///
/// Every call is retried when a signal interrupts it (`EINTR`), and every
/// failure becomes a ``FileWrapperError`` that names the call and the path.
/// Paths are passed as closures so that they are only built for an error:
/// the calls themselves work relative to directory descriptors.
package enum Syscall {
    package typealias Path = () -> String

    /// Makes `call` once: `body` makes it and returns its result, -1 with
    /// the cause in `errno` on failure. Where a test armed a fault for this
    /// call (``FaultInjection``), the fault happens instead; once the
    /// ``CreationGate`` is closed, a call that makes a name fails.
    package static func invoke<Result: FixedWidthInteger>(_ call: SystemCall, _ body: () -> Result) -> Result {
        if FaultInjection.isArmed, let code = FaultInjection.take(call) {
            Glibc.errno = code
            return -1
        }
        return CreationGate.stops(call) ? CreationGate.pass(body) : body()
    }

    /// ``invoke(_:_:)`` for a call that returns a pointer, nil on failure.
    package static func invoke<Pointer>(_ call: SystemCall, _ body: () -> Pointer?) -> Pointer? {
        if FaultInjection.isArmed, let code = FaultInjection.take(call) {
            Glibc.errno = code
            return nil
        }
        return body()
    }

    /// Runs `body` until it succeeds or fails with something other than
    /// `EINTR`; -1 means failure, with the cause in `errno`.
    @discardableResult
    package static func retrying<Result: FixedWidthInteger>(
        _ call: SystemCall, _ path: Path, _ body: () -> Result
    ) throws(FileWrapperError) -> Result {
        while true {
            let result = invoke(call, body)
            if result != -1 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw FileWrapperError(systemCall: call, path: path(), errno: Errno(rawValue: code))
        }
    }

    /// `openat(2)`; `O_CLOEXEC` is always added.
    package static func open(
        _ name: String, in directory: CInt, flags: CInt, mode: mode_t = 0, path: Path
    ) throws(FileWrapperError) -> CInt {
        let call: SystemCall = flags & O_CREAT != 0 ? .openatCreate : .openat
        return try retrying(call, path) { Glibc.openat(directory, name, flags | O_CLOEXEC, mode) }
    }

    /// `openat(2)` with a name given as bytes, for names that are not valid UTF-8.
    package static func open(
        bytes name: [UInt8], in directory: CInt, flags: CInt, path: Path
    ) throws(FileWrapperError) -> CInt {
        try withCName(name) { cName throws(FileWrapperError) in
            try open(cName: cName, in: directory, flags: flags, path: path)
        }
    }

    /// `openat(2)` with a name given as a NUL-terminated C string, as
    /// ``forEachName(inDirectory:path:_:)`` hands it over.
    package static func open(
        cName name: UnsafePointer<CChar>, in directory: CInt, flags: CInt, path: Path
    ) throws(FileWrapperError) -> CInt {
        try retrying(.openat, path) { Glibc.openat(directory, name, flags | O_CLOEXEC) }
    }

    /// Opens a directory without following a symlink in its last component.
    package static func openDirectory(_ name: String, in directory: CInt, path: Path) throws(FileWrapperError) -> CInt {
        try open(name, in: directory, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: path)
    }

    /// Opens the directory at `path`, relative and `/`-separated, below
    /// `directory`, never through a symlink or out of `directory`:
    /// `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, one call
    /// for the whole path, in pieces of at most ``pathPiece`` bytes; where
    /// the kernel lacks `openat2`, one `openat(O_NOFOLLOW)` a component.
    /// A symlink anywhere on the way fails with `ELOOP`.
    package static func openDirectory(beneath path: [UInt8], in directory: CInt, path display: Path) throws(FileWrapperError) -> CInt {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW
        let slash = UInt8(ascii: "/")
        let pieces = hasOpenBeneath
            ? pieces(of: path, atMost: pathPiece)
            : path.split(separator: slash).map(Array.init)
        var fd = directory
        for piece in pieces {
            let next = try withCName(piece) { cPath throws(FileWrapperError) in
                try retrying(hasOpenBeneath ? .openat2 : .openat, display) {
                    hasOpenBeneath ? cfs_open_beneath(fd, cPath, flags) : Glibc.openat(fd, cPath, flags | O_CLOEXEC)
                }
            }
            if fd != directory { close(fd) }
            fd = next
        }
        return fd == directory ? try retrying(.dup, display) { Glibc.dup(directory) } : fd
    }

    /// The most bytes of a path given to one `openat2`: below `PATH_MAX`.
    static let pathPiece = 4000

    /// Whether the kernel has `openat2(2)` (Linux 5.6 on, unless a seccomp
    /// filter hides it), asked once.
    private static let hasOpenBeneath: Bool = {
        let fd = invoke(.openat2) { cfs_open_beneath(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY) }
        guard fd >= 0 else { return Glibc.errno != ENOSYS && Glibc.errno != EPERM }
        close(fd)
        return true
    }()

    /// `path` cut at slashes into pieces of at most `limit` bytes (a single
    /// name longer than that stays whole, for the kernel to refuse).
    private static func pieces(of path: [UInt8], atMost limit: Int) -> [[UInt8]] {
        guard path.count > limit else { return path.isEmpty ? [] : [path] }
        var pieces: [[UInt8]] = []
        var current: [UInt8] = []
        for name in path.split(separator: UInt8(ascii: "/")) {
            if !current.isEmpty, current.count + 1 + name.count > limit {
                pieces.append(current)
                current = []
            }
            if !current.isEmpty { current.append(UInt8(ascii: "/")) }
            current.append(contentsOf: name)
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    /// `close(2)`. Not retried: on Linux the descriptor is gone even when it fails.
    package static func close(_ fd: CInt) {
        _ = invoke(.close) { Glibc.close(fd) }
    }

    /// `fstatat(2)` of `name` without following a final symlink, for a
    /// look before acting: nil when nothing is there or it cannot be seen.
    package static func statusIfPresent(of name: String, in directory: CInt) -> stat? {
        var info = stat()
        return invoke(.fstatat, { Glibc.fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) }) == 0 ? info : nil
    }

    /// `unlinkat(2)` of a file this process made, when undoing: best
    /// effort, since an error is already on its way.
    package static func removeQuietly(_ name: String, in directory: CInt) {
        _ = invoke(.unlinkat) { Glibc.unlinkat(directory, name, 0) }
    }

    /// `fstatat(2)` without following a final symlink.
    package static func status(of name: String, in directory: CInt, path: Path) throws(FileWrapperError) -> stat {
        var info = stat()
        try retrying(.fstatat, path) { Glibc.fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) }
        return info
    }

    /// `fstatat(2)` without following a final symlink, for a name given as bytes.
    package static func status(ofBytes name: [UInt8], in directory: CInt, path: Path) throws(FileWrapperError) -> stat {
        var info = stat()
        try withCName(name) { cName throws(FileWrapperError) in
            try retrying(.fstatat, path) { Glibc.fstatat(directory, cName, &info, AT_SYMLINK_NOFOLLOW) }
        }
        return info
    }

    /// `fstat(2)`.
    package static func status(of fd: CInt, path: Path) throws(FileWrapperError) -> stat {
        var info = stat()
        try retrying(.fstat, path) { Glibc.fstat(fd, &info) }
        return info
    }

    /// `mkdirat(2)`.
    package static func makeDirectory(_ name: String, in directory: CInt, mode: mode_t, path: Path) throws(FileWrapperError) {
        try retrying(.mkdirat, path) { Glibc.mkdirat(directory, name, mode) }
    }

    /// `symlinkat(2)` with the target's exact bytes.
    package static func makeSymbolicLink(
        _ name: String, in directory: CInt, target: [UInt8], path: Path
    ) throws(FileWrapperError) {
        try withCName(target) { cTarget throws(FileWrapperError) in
            try retrying(.symlinkat, path) { Glibc.symlinkat(cTarget, directory, name) }
        }
    }

    /// `readlinkat(2)`: the target's exact bytes, however long.
    package static func symbolicLinkTarget(ofBytes name: [UInt8], in directory: CInt, path: Path) throws(FileWrapperError) -> [UInt8] {
        var capacity = 256
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let length = try withCName(name) { cName throws(FileWrapperError) in
                try retrying(.readlinkat, path) {
                    buffer.withUnsafeMutableBytes {
                        Glibc.readlinkat(directory, cName, $0.baseAddress!.assumingMemoryBound(to: CChar.self), capacity)
                    }
                }
            }
            if length < capacity { return Array(buffer[..<length]) }
            capacity *= 4
        }
    }

    /// `linkat(2)`: a hard link, not following a symlink.
    package static func link(
        _ name: String, in directory: CInt, as newName: String, in newDirectory: CInt, path: Path
    ) throws(FileWrapperError) {
        try retrying(.linkat, path) { Glibc.linkat(directory, name, newDirectory, newName, 0) }
    }

    /// `unlinkat(2)`; `AT_REMOVEDIR` removes an empty directory.
    package static func remove(bytes name: [UInt8], in directory: CInt, isDirectory: Bool, path: Path) throws(FileWrapperError) {
        try withCName(name) { cName throws(FileWrapperError) in
            try retrying(.unlinkat, path) { Glibc.unlinkat(directory, cName, isDirectory ? AT_REMOVEDIR : 0) }
        }
    }

    /// `renameat2(2)` within one directory.
    package static func rename(
        _ name: String, to newName: String, in directory: CInt, flags: UInt32, path: Path
    ) throws(FileWrapperError) {
        try retrying(.renameat2, path) { cfs_renameat2(directory, name, directory, newName, flags) }
    }

    /// Opens the lock file `name` in `directory` for reading and writing,
    /// making it if it is not there; with `readOnly`, opens it only for
    /// reading, and only if it is there. Never through a symlink
    /// (`O_NOFOLLOW`); `O_CLOEXEC` is added.
    ///
    /// A lock file this call makes gets mode 0666 whatever the umask
    /// (`fchmod`, best effort): a user who may write the folder may save
    /// the document, and must be able to open for writing the lock file
    /// another user made. Its contents are never read.
    package static func openLockFile(_ name: String, in directory: CInt, readOnly: Bool, path: Path) throws(FileWrapperError) -> CInt {
        let flags = O_NOFOLLOW | O_CLOEXEC
        if readOnly { return try retrying(.openatLock, path) { Glibc.openat(directory, name, flags | O_RDONLY) } }
        while true {
            let made = invoke(.openatLock) { Glibc.openat(directory, name, flags | O_RDWR | O_CREAT | O_EXCL, 0o666) }
            if made >= 0 {
                _ = invoke(.fchmod) { Glibc.fchmod(made, 0o666) }
                return made
            }
            switch Glibc.errno {
            case EINTR: continue
            case EEXIST: break
            case let code: throw FileWrapperError(systemCall: .openatLock, path: path(), errno: Errno(rawValue: code))
            }
            let opened = invoke(.openatLock) { Glibc.openat(directory, name, flags | O_RDWR) }
            if opened >= 0 { return opened }
            // Removed by its last user in between: make it again.
            guard Glibc.errno == ENOENT || Glibc.errno == EINTR else {
                throw FileWrapperError(systemCall: .openatLock, path: path(), errno: Errno(rawValue: Glibc.errno))
            }
        }
    }

    /// Locks the whole file `fd` for its open file description
    /// (`fcntl(F_OFD_SETLKW)`, or `F_OFD_SETLK` without `waiting`): a write
    /// lock when `exclusive`, else a read lock. Returns false when, not
    /// waiting, another holder is in the way (`EAGAIN`). Two descriptors
    /// opened separately are two holders, in one process or two; the kernel
    /// drops the lock when the last descriptor of its description closes,
    /// its process killed included.
    package static func lock(_ fd: CInt, exclusive: Bool, waiting: Bool, path: Path) throws(FileWrapperError) -> Bool {
        while true {
            if invoke(.ofdLock, { cfs_lock_file(fd, exclusive ? 1 : 0, waiting ? 1 : 0) }) == 0 { return true }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN where !waiting, EACCES where !waiting: return false
            case let code: throw FileWrapperError(systemCall: .ofdLock, path: path(), errno: Errno(rawValue: code))
            }
        }
    }

    /// A new pipe (`pipe(2)`, both ends marked close-on-exec with
    /// `fcntl`; Swift does not import `pipe2`): its read end and its write end.
    package static func pipe(path: Path) throws(FileWrapperError) -> (read: CInt, write: CInt) {
        var ends: [CInt] = [-1, -1]
        _ = try retrying(.pipe, path) { ends.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress!) } }
        for end in ends { _ = try retrying(.fcntl, path) { fcntl(end, F_SETFD, FD_CLOEXEC) } }
        return (ends[0], ends[1])
    }

    /// A new inotify instance, non-blocking and close-on-exec
    /// (`inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`).
    package static func makeInotify(path: Path) throws(FileWrapperError) -> CInt {
        try retrying(.inotifyInit1, path) { inotify_init1(CInt(IN_NONBLOCK | IN_CLOEXEC)) }
    }

    /// `inotify_add_watch(2)` of the file at `watched` (not followed if it
    /// is a symlink): the watch descriptor.
    package static func watch(_ watched: String, with inotify: CInt, for mask: UInt32, path: Path) throws(FileWrapperError) -> CInt {
        try retrying(.inotifyAddWatch, path) { inotify_add_watch(inotify, watched, mask | UInt32(IN_DONT_FOLLOW)) }
    }

    /// One `read(2)` of a non-blocking descriptor: the bytes read, 0 when
    /// nothing is there yet (`EAGAIN`).
    package static func readAvailable(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer, path: Path) throws(FileWrapperError) -> Int {
        while true {
            let count = invoke(.read) { Glibc.read(fd, buffer.baseAddress!, buffer.count) }
            if count >= 0 { return count }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN: return 0
            case let code: throw FileWrapperError(systemCall: .read, path: path(), errno: Errno(rawValue: code))
            }
        }
    }

    /// Fills `buffer` with `read(2)`, continuing after short reads; returns
    /// the bytes read, fewer than the buffer holds only at the end of the file.
    package static func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer, path: Path) throws(FileWrapperError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try retrying(.read, path) { Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled) }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Fills `buffer` from `offset` with `pread(2)`, leaving the descriptor's
    /// own offset alone; returns the bytes read, fewer than the buffer holds
    /// only at the end of the file.
    package static func read(_ fd: CInt, at offset: Int, into buffer: UnsafeMutableRawBufferPointer, path: Path) throws(FileWrapperError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try retrying(.pread, path) { pread(fd, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset + filled)) }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Writes all of `bytes` with `write(2)`, continuing after short writes.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: CInt, path: Path) throws(FileWrapperError) {
        var offset = 0
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, 1 << 30)
            offset += try retrying(.write, path) { Glibc.write(fd, bytes.baseAddress! + offset, chunk) }
        }
    }

    /// Copies `count` bytes between descriptors with `copy_file_range(2)`,
    /// inside the kernel; falls back to read and write where the file
    /// systems do not support it. Reads from `offset` in `source` when it is
    /// given, leaving the descriptor's own offset alone, else from that
    /// offset. Returns the bytes copied, fewer only if the source ended early.
    package static func copy(
        _ count: Int, from source: CInt, at offset: Int64? = nil, to destination: CInt, path: Path
    ) throws(FileWrapperError) -> Int {
        var position = off_t(offset ?? 0)
        var copied = 0
        var kernelCopy = true
        var buffer: UnsafeMutableRawBufferPointer?
        defer { buffer?.deallocate() }
        while copied < count {
            let chunk = min(count - copied, 1 << 30)
            if kernelCopy {
                let result = offset == nil
                    ? invoke(.copyFileRange) { cfs_copy_file_range(source, nil, destination, chunk) }
                    : invoke(.copyFileRange) { cfs_copy_file_range(source, &position, destination, chunk) }
                if result >= 0 {
                    if result == 0 { break }
                    copied += result
                    continue
                }
                let code = Glibc.errno
                if code == EINTR { continue }
                guard [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EBADF].contains(code) else {
                    throw FileWrapperError(systemCall: .copyFileRange, path: path(), errno: Errno(rawValue: code))
                }
                kernelCopy = false
            }
            let block = buffer ?? UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            buffer = block
            let target = UnsafeMutableRawBufferPointer(rebasing: block[..<min(block.count, count - copied)])
            let got = try offset == nil
                ? read(source, into: target, path: path)
                : retrying(.pread, path) { pread(source, target.baseAddress, target.count, position) }
            if got == 0 { break }
            position += off_t(got)
            try writeAll(UnsafeRawBufferPointer(rebasing: block[..<got]), to: destination, path: path)
            copied += got
        }
        return copied
    }

    /// The names in a directory, `.` and `..` left out, in the order
    /// `readdir(3)` gives them.
    package static func names(inDirectory fd: CInt, path: Path) throws(FileWrapperError) -> [[UInt8]] {
        var names: [[UInt8]] = []
        try forEachName(inDirectory: fd, path: path) { name, _ in names.append(Array(name)) }
        return names
    }

    /// Calls `body` with each name in a directory, `.` and `..` left out,
    /// in the order `readdir(3)` gives them, and the type its directory
    /// entry records (`DT_REG`, `DT_DIR`, ...; `DT_UNKNOWN` where the file
    /// system does not say). The name's bytes are followed by a NUL and
    /// stay valid only during the call; nothing is copied.
    package static func forEachName(
        inDirectory fd: CInt, path: Path, _ body: (UnsafeBufferPointer<UInt8>, UInt8) throws(FileWrapperError) -> Void
    ) throws(FileWrapperError) {
        let duplicate = try retrying(.dup, path) { Glibc.dup(fd) }
        guard let stream = invoke(.fdopendir, { Glibc.fdopendir(duplicate) }) else {
            let code = Glibc.errno
            close(duplicate)
            throw FileWrapperError(systemCall: .fdopendir, path: path(), errno: Errno(rawValue: code))
        }
        defer { Glibc.closedir(stream) }
        Glibc.rewinddir(stream)
        while true {
            Glibc.errno = 0
            guard let entry = invoke(.readdir, { Glibc.readdir(stream) }) else {
                if Glibc.errno != 0 {
                    throw FileWrapperError(systemCall: .readdir, path: path(), errno: Errno(rawValue: Glibc.errno))
                }
                return
            }
            let type = entry.pointee.d_type
            let name = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \.d_name)!).assumingMemoryBound(to: UInt8.self)
            let length = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
            let bytes = UnsafeBufferPointer(start: name, count: length)
            if bytes.elementsEqual([0x2E]) || bytes.elementsEqual([0x2E, 0x2E]) { continue }
            try body(bytes, type)
        }
    }

    /// Calls `body` with `bytes` as a NUL-terminated C string.
    @discardableResult
    package static func withCName<Success>(
        _ bytes: [UInt8], _ body: (UnsafePointer<CChar>) throws(FileWrapperError) -> Success
    ) throws(FileWrapperError) -> Success {
        var terminated = bytes
        terminated.append(0)
        let result = terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cName in
                Result { () throws(FileWrapperError) in try body(cName.baseAddress!) }
            }
        }
        return try result.get()
    }

    /// The bytes free for this process on the file system that holds
    /// `fd` (`fstatfs(2)`: `f_bavail` blocks of `f_bsize`), saturating at `Int64.max`.
    package static func freeBytes(of fd: CInt, path: Path) throws(FileWrapperError) -> Int64 {
        var free: UInt64 = 0
        try retrying(.fstatfs, path) { cfs_free_bytes(fd, &free) }
        return Int64(clamping: free)
    }

    /// The processors this process may run on, at least 1: those of its
    /// affinity mask (`sched_getaffinity(2)`; fewer than the machine has
    /// under `taskset` or in a container's CPU set), or the online ones.
    package static func availableProcessors() -> Int {
        let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let allowed = Int(invoke(.schedGetaffinity) { cfs_affinity_count() })
        return max(1, allowed > 0 ? min(allowed, online) : online)
    }

    /// `UTIME_OMIT` for `utimensat(2)` and `futimens(2)`: leave this time as
    /// it is. (A C macro Swift does not import.)
    package static let omitTime = timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)
}

extension Data {
    /// `withUnsafeBytes`, keeping the typed error of `body`.
    func withBytes<Success>(
        _ body: (UnsafeRawBufferPointer) throws(FileWrapperError) -> Success
    ) throws(FileWrapperError) -> Success {
        try withUnsafeBytes { buffer in Result { () throws(FileWrapperError) in try body(buffer) } }.get()
    }

    /// `withUnsafeMutableBytes`, keeping the typed error of `body`.
    mutating func withMutableBytes<Success>(
        _ body: (UnsafeMutableRawBufferPointer) throws(FileWrapperError) -> Success
    ) throws(FileWrapperError) -> Success {
        try withUnsafeMutableBytes { buffer in Result { () throws(FileWrapperError) in try body(buffer) } }.get()
    }
}
