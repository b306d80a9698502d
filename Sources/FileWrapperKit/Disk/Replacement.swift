import CFileSystem
import Glibc
import SystemPackage

/// The parts of ``PendingReplacement``, the one way writers replace an
/// item: temporary names a later save recognises, removal of what a dead
/// writer left, the modes a replacement keeps, and the swap.
///
/// A temporary is named `.<name>.fwk-save-<pid>-<key>`. Before it exists,
/// its writer locks byte `<key>` of the directory that holds it, through
/// the descriptor on that directory it works in (an open file description
/// lock, `fcntl(F_OFD_SETLK)`), and keeps the descriptor open as long as it
/// works; the lock ends with the writer however it ends, killed included.
/// A later save removes a temporary only when no one holds its byte
/// (`F_OFD_GETLK`). A process ID could not tell: in another PID namespace
/// it names another process or none, and IDs are reused. The ID stays in
/// the name for whoever reads a listing.
package enum Replacement {
    private static let marker = ".fwk-save-"

    /// A fresh temporary sibling name for `name` (cut to fit `NAME_MAX`),
    /// its byte of `parent` locked for the writer: the caller keeps
    /// `parent` open while the temporary may exist. Where the file system
    /// has no such locks the name is not locked, and a cleaner there cannot
    /// tell it from a dead writer's, so leaves it.
    package static func temporaryName(for name: String, lockingIn parent: CInt) -> String {
        let key = Int64.random(in: 1...(1 << 62))
        _ = Syscall.invoke(.fcntl) { cfs_lock_byte(parent, off_t(key)) }
        return "." + prefix(of: name) + marker + "\(getpid())-" + String(key, radix: 36)
    }

    /// Removes the temporaries that writers of `name` left in `parent` when
    /// they died: those whose byte no one holds. Best effort: what cannot be
    /// removed now is tried again next time.
    package static func removeLeftovers(of name: String, in parent: CInt, parentPath: String) {
        let start = Array(("." + prefix(of: name) + marker).utf8)
        guard let names = try? Syscall.names(inDirectory: parent, path: { parentPath }) else { return }
        for entry in names where entry.starts(with: start) {
            guard let dash = entry.lastIndex(of: UInt8(ascii: "-")), dash >= start.count,
                  let key = Int64(String(decoding: entry[(dash + 1)...], as: UTF8.self), radix: 36), key > 0,
                  Syscall.invoke(.fcntl, { cfs_byte_is_locked(parent, off_t(key)) }) == 0
            else { continue }
            try? TreeRemover.remove(entry, in: parent, parentPath: parentPath)
        }
    }

    /// Puts `temporary` in place of `name`, atomically where the file system
    /// can exchange the two (`renameat2(RENAME_EXCHANGE)`). Returns the name
    /// under which the replaced item now sits, for removal, or `nil` when
    /// nothing was there or it is already gone.
    package static func swap(_ temporary: String, into name: String, in parent: CInt, parentPath: String) throws(FileWrapperError) -> String? {
        let path = { PathDisplay.join(parentPath, [name]) }
        while true {
            if Syscall.invoke(.renameat2, { cfs_renameat2(parent, temporary, parent, name, cfs_RENAME_EXCHANGE) }) == 0 {
                return temporary
            }
            switch Glibc.errno {
            case EINTR:
                continue
            case ENOENT:
                if Syscall.invoke(.renameat2, { cfs_renameat2(parent, temporary, parent, name, cfs_RENAME_NOREPLACE) }) == 0 { return nil }
                if Glibc.errno == EEXIST || Glibc.errno == EINTR { continue }
                if Glibc.errno == EINVAL || Glibc.errno == ENOSYS {
                    try Syscall.retrying(.renameat, path) { Glibc.renameat(parent, temporary, parent, name) }
                    return nil
                }
                throw FileWrapperError(systemCall: .renameat2, path: path(), errno: Errno(rawValue: Glibc.errno))
            case EINVAL, ENOSYS:
                return try swapWithoutExchange(temporary, into: name, in: parent, path: path)
            case let code:
                throw FileWrapperError(systemCall: .renameat2, path: path(), errno: Errno(rawValue: code))
            }
        }
    }

    /// Renames `temporary` to `name` only if nothing is at `name`
    /// (`renameat2(RENAME_NOREPLACE)`); fails with `EEXIST` otherwise. Where
    /// the file system lacks the flag, a check before a plain rename stands
    /// in for it.
    package static func move(_ temporary: String, toNew name: String, in parent: CInt, parentPath: String) throws(FileWrapperError) {
        let path = { PathDisplay.join(parentPath, [name]) }
        while Syscall.invoke(.renameat2, { cfs_renameat2(parent, temporary, parent, name, cfs_RENAME_NOREPLACE) }) != 0 {
            switch Glibc.errno {
            case EINTR:
                continue
            case EINVAL, ENOSYS:
                guard Syscall.statusIfPresent(of: name, in: parent) == nil else {
                    throw FileWrapperError(systemCall: .renameat, path: path(), errno: .fileExists)
                }
                try Syscall.retrying(.renameat, path) { Glibc.renameat(parent, temporary, parent, name) }
                return
            case let code:
                throw FileWrapperError(systemCall: .renameat2, path: path(), errno: Errno(rawValue: code))
            }
        }
    }

    /// For file systems without `RENAME_EXCHANGE`: a plain rename replaces
    /// a file atomically; a directory is first moved aside, which leaves a
    /// moment with nothing at `name`.
    private static func swapWithoutExchange(
        _ temporary: String, into name: String, in parent: CInt, path: Syscall.Path
    ) throws(FileWrapperError) -> String? {
        let existing = try Syscall.status(of: name, in: parent, path: path)
        let replacement = try Syscall.status(of: temporary, in: parent, path: path)
        if FileKind(mode: existing.st_mode) != .directory, FileKind(mode: replacement.st_mode) != .directory {
            try Syscall.retrying(.renameat, path) { Glibc.renameat(parent, temporary, parent, name) }
            return nil
        }
        let aside = temporaryName(for: name, lockingIn: parent)
        try Syscall.retrying(.renameat, path) { Glibc.renameat(parent, name, parent, aside) }
        try Syscall.retrying(.renameat, path) { Glibc.renameat(parent, temporary, parent, name) }
        return aside
    }

    /// `name` cut at a character boundary to at most 100 bytes: what the
    /// names made beside it (temporaries, a document's lock file) start
    /// with, so that they fit `NAME_MAX`.
    package static func prefix(of name: String) -> String {
        var result = ""
        var length = 0
        for scalar in name.unicodeScalars {
            length += UTF8.width(scalar)
            if length > 100 { break }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}
