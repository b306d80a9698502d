import Glibc

/// The three kinds of node a tree holds, on disk, in a ``FileWrapper`` and
/// in an archive: the one enum every module of the package names them by.
package enum FileKind: Sendable, Hashable {
    case regularFile, directory, symbolicLink

    /// The kind an inode's mode gives; nil for a device node, a FIFO or a socket.
    package init?(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regularFile
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        default: return nil
        }
    }
}
