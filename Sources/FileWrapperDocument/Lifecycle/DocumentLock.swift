import FileWrapperKit
import Foundation
import Glibc

/// The turn-taking of everyone who reads or writes one document, in any
/// process of the machine (docs/coordination.md): an open file description
/// lock (`fcntl(F_OFD_SETLKW)`) on the lock file `.<name>.fwk-lock` beside
/// the document, shared by readers, exclusive for a writer.
///
/// Beside the document, not on it: a save replaces the document by a
/// rename, and a lock on the document would stay on the version replaced.
/// The lock file lives only while someone uses it: whoever finds itself its
/// last user (it holds, or can take, the exclusive lock) removes it; a
/// waiter that then gets the lock of the removed file sees that the name no
/// longer leads to it and starts again. A lock file left by a killed
/// process is taken over, and removed, by the next user.
///
/// On a file system without such locks (`fcntl` fails with `ENOLCK`,
/// `EOPNOTSUPP` or `EINVAL`), and for a reader in a folder it may not write
/// where no lock file is, the body runs without one: saves are then only
/// checked against the stamp, as ``Held/unlockedBecause`` says.
enum DocumentLock {
    enum Mode {
        case shared, exclusive
    }

    /// What the body runs under.
    struct Held {
        /// Why no lock is held, or nil when it is.
        var unlockedBecause: String?

        /// For a refused save's message: what ordered the saves.
        var ordering: String {
            unlockedBecause.map { "; saves are only checked here, not ordered: \($0)" } ?? ""
        }
    }

    /// The name of the lock file of the document named `name`.
    static func lockFileName(for name: String) -> String {
        "." + Replacement.prefix(of: name) + ".fwk-lock"
    }

    /// Runs `body` holding the lock of the document at `url` in `mode`,
    /// waiting for it as long as others hold it in the way. Blocks its
    /// thread: call it off Swift's cooperative pool.
    static func holding<Result>(_ mode: Mode, of url: URL, _ body: (Held) throws -> Result) throws -> Result {
        let parentPath = url.deletingLastPathComponent().path
        let name = lockFileName(for: url.lastPathComponent)
        let lockPath = { PathDisplay.join(parentPath, [name]) }
        let parent: CInt
        do {
            parent = try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
        } catch {
            guard mode == .shared else {
                throw DocumentError(.writeFailed, url: url, "cannot be saved: its folder cannot be opened", underlying: error)
            }
            // Nothing to read either: let the reader say so.
            return try body(Held(unlockedBecause: "its folder cannot be opened"))
        }
        defer { Syscall.close(parent) }
        let fd: CInt
        switch try acquire(mode, name, in: parent, path: lockPath, url: url) {
        case .locked(let locked): fd = locked
        case .unlocked(let reason): return try body(Held(unlockedBecause: reason))
        }
        defer { release(fd, mode, name, in: parent, path: lockPath) }
        return try body(Held(unlockedBecause: nil))
    }

    private enum Acquired {
        case locked(CInt)
        case unlocked(String)
    }

    /// Opens (making it if need be) and locks the lock file, until the lock
    /// held is on the file its name leads to.
    private static func acquire(_ mode: Mode, _ name: String, in parent: CInt, path: Syscall.Path, url: URL) throws -> Acquired {
        while true {
            let fd: CInt
            do {
                fd = try Syscall.openLockFile(name, in: parent, readOnly: false, path: path)
            } catch let error where mode == .shared && [EACCES, EPERM, EROFS].contains(error.errno?.rawValue) {
                // A reader in a folder it may not write: the lock file someone else made, or none.
                guard let readOnly = try? Syscall.openLockFile(name, in: parent, readOnly: true, path: path) else {
                    return .unlocked("the folder is not writable here, so no lock file can be made (\(error))")
                }
                fd = readOnly
            } catch {
                throw refusal(url, mode, error)
            }
            do {
                _ = try Syscall.lock(fd, exclusive: mode == .exclusive, waiting: true, path: path)
            } catch let error where [ENOLCK, EOPNOTSUPP, EINVAL].contains(error.errno?.rawValue) {
                Syscall.close(fd)
                Syscall.removeQuietly(name, in: parent)
                return .unlocked("the file system does not lock files (\(error))")
            } catch {
                Syscall.close(fd)
                throw refusal(url, mode, error)
            }
            if isNamed(fd, name, in: parent, path: path) { return .locked(fd) }
            Syscall.close(fd)
        }
    }

    /// Whether `name` in `parent` is the file open as `fd` (it is not once
    /// its last user removed it, or another made a new one).
    private static func isNamed(_ fd: CInt, _ name: String, in parent: CInt, path: Syscall.Path) -> Bool {
        guard let named = Syscall.statusIfPresent(of: name, in: parent), let open = try? Syscall.status(of: fd, path: path) else { return false }
        return named.st_dev == open.st_dev && named.st_ino == open.st_ino
    }

    /// Removes the lock file if this is its last user (holding the
    /// exclusive lock, or taking it at once), then lets the lock go.
    private static func release(_ fd: CInt, _ mode: Mode, _ name: String, in parent: CInt, path: Syscall.Path) {
        let last = mode == .exclusive || (try? Syscall.lock(fd, exclusive: true, waiting: false, path: path)) == true
        if last, isNamed(fd, name, in: parent, path: path) {
            Syscall.removeQuietly(name, in: parent)
        }
        Syscall.close(fd)
    }

    private static func refusal(_ url: URL, _ mode: Mode, _ error: any Error) -> DocumentError {
        let purpose = mode == .exclusive ? "cannot be saved" : "cannot be read"
        return DocumentError(mode == .exclusive ? .writeFailed : .unreadable, url: url,
                             "\(purpose): its lock file \(lockFileName(for: url.lastPathComponent)) could not be locked", underlying: error)
    }
}
