/// The system calls that go through the ``Syscall`` funnel, by the names
/// errors show (``FileWrapperError/systemCall``).
package enum SystemCall: String, Sendable, CaseIterable {
    case open, openat
    /// `openat` with `O_CREAT`: it makes a file.
    case openatCreate = "openat(create)"
    case openat2
    /// `openat` of a lock file, made if need be: a call of its own, so
    /// that a fault planned for the files a writer makes does not count it.
    case openatLock = "openat(lock)"
    case fstat, fstatat, lstat, readlinkat, lseek, fstatfs
    case fdopendir, readdir
    case read, pread
    case listxattr, getxattr
    case dup, close, fcntl, pipe
    /// `fcntl` taking an open file description lock on a whole file.
    case ofdLock = "fcntl(F_OFD_SETLKW)"
    case schedGetaffinity = "sched_getaffinity"
    case inotifyInit1 = "inotify_init1"
    case inotifyAddWatch = "inotify_add_watch"
    case mkdirat, symlinkat, linkat, unlinkat
    case renameat, renameat2
    case write
    case copyFileRange = "copy_file_range"
    case fchmod, fchmodat, fchown, fchownat, futimens, utimensat, fsetxattr
    case fsync, syncfs
    case syncFileRange = "sync_file_range"

    /// Whether the call changes the file system, so that its failure is a
    /// write error (`CocoaError.fileWrite…`) rather than a read error.
    package var changesFiles: Bool {
        switch self {
        case .open, .openat, .openat2, .fstat, .fstatat, .lstat, .readlinkat, .lseek, .fstatfs, .fdopendir, .readdir, .read, .pread,
             .listxattr, .getxattr, .dup, .close, .fcntl, .ofdLock, .pipe, .schedGetaffinity,
             .inotifyInit1, .inotifyAddWatch:
            false
        case .openatCreate, .openatLock, .mkdirat, .symlinkat, .linkat, .unlinkat, .renameat, .renameat2, .write, .copyFileRange,
             .fchmod, .fchmodat, .fchown, .fchownat, .futimens, .utimensat, .fsetxattr, .fsync, .syncfs,
             .syncFileRange:
            true
        }
    }
}
