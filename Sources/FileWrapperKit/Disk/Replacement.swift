import CFileSystem
import Glibc
import SystemPackage

/// Saving beside a destination and swapping into place: temporary names a
/// later save recognises, removal of what a killed save left, and the swap.
package enum Replacement {
    private static let marker = ".fwk-save-"

    /// A fresh temporary sibling name for `name`:
    /// `.<name>.fwk-save-<pid>-<random>`, the name cut to fit `NAME_MAX`.
    package static func temporaryName(for name: String) -> String {
        "." + prefix(of: name) + marker + "\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// Removes the temporaries that saves of `name` left in `parent` when
    /// their process died. Temporaries of live processes are left alone.
    /// Best effort: what cannot be removed now is tried again next time.
    package static func removeLeftovers(of name: String, in parent: CInt, parentPath: String) {
        let start = Array(("." + prefix(of: name) + marker).utf8)
        guard let names = try? Syscall.names(inDirectory: parent, path: { parentPath }) else { return }
        for entry in names where entry.starts(with: start) {
            let rest = String(decoding: entry[start.count...], as: UTF8.self)
            guard let pid = rest.split(separator: "-").first.flatMap({ pid_t($0) }), !isAlive(pid) else { continue }
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
            if cfs_renameat2(parent, temporary, parent, name, cfs_RENAME_EXCHANGE) == 0 {
                return temporary
            }
            switch Glibc.errno {
            case EINTR:
                continue
            case ENOENT:
                if cfs_renameat2(parent, temporary, parent, name, cfs_RENAME_NOREPLACE) == 0 { return nil }
                if Glibc.errno == EEXIST || Glibc.errno == EINTR { continue }
                if Glibc.errno == EINVAL || Glibc.errno == ENOSYS {
                    try Syscall.retrying("renameat", path) { Glibc.renameat(parent, temporary, parent, name) }
                    return nil
                }
                throw FileWrapperError(systemCall: "renameat2", path: path(), errno: Errno(rawValue: Glibc.errno))
            case EINVAL, ENOSYS:
                return try swapWithoutExchange(temporary, into: name, in: parent, path: path)
            case let code:
                throw FileWrapperError(systemCall: "renameat2", path: path(), errno: Errno(rawValue: code))
            }
        }
    }

    /// Renames `temporary` to `name` only if nothing is at `name`
    /// (`renameat2(RENAME_NOREPLACE)`); fails with `EEXIST` otherwise. Where
    /// the file system lacks the flag, a check before a plain rename stands
    /// in for it.
    package static func move(_ temporary: String, toNew name: String, in parent: CInt, parentPath: String) throws(FileWrapperError) {
        let path = { PathDisplay.join(parentPath, [name]) }
        while cfs_renameat2(parent, temporary, parent, name, cfs_RENAME_NOREPLACE) != 0 {
            switch Glibc.errno {
            case EINTR:
                continue
            case EINVAL, ENOSYS:
                var info = stat()
                guard Glibc.fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) != 0 else {
                    throw FileWrapperError(systemCall: "renameat", path: path(), errno: .fileExists)
                }
                try Syscall.retrying("renameat", path) { Glibc.renameat(parent, temporary, parent, name) }
                return
            case let code:
                throw FileWrapperError(systemCall: "renameat2", path: path(), errno: Errno(rawValue: code))
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
        if InodeKind(mode: existing.st_mode) != .directory, InodeKind(mode: replacement.st_mode) != .directory {
            try Syscall.retrying("renameat", path) { Glibc.renameat(parent, temporary, parent, name) }
            return nil
        }
        let aside = temporaryName(for: name)
        try Syscall.retrying("renameat", path) { Glibc.renameat(parent, name, parent, aside) }
        try Syscall.retrying("renameat", path) { Glibc.renameat(parent, temporary, parent, name) }
        return aside
    }

    private static func isAlive(_ pid: pid_t) -> Bool {
        pid == getpid() || kill(pid, 0) == 0 || Glibc.errno != ESRCH
    }

    /// `name` cut at a character boundary to at most 100 bytes.
    private static func prefix(of name: String) -> String {
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
