import Glibc

/// What every ``DirectoryWalk`` does with the entries of one directory:
/// open a subdirectory or a regular file beneath it, and check names that
/// must be `String` keys.
package enum DirectoryListing {
    /// Opens the subdirectory `name` of the directory `fd`
    /// (`openat(O_DIRECTORY | O_NOFOLLOW)`).
    static func openSubdirectory(_ name: [UInt8], in fd: CInt, path: Syscall.Path) throws(FileWrapperError) -> CInt {
        try Syscall.open(bytes: name, in: fd, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: path)
    }

    /// Opens `name` (a NUL-terminated C string), which its directory entry
    /// lists as a regular file, and `fstat`s it: one path lookup a file.
    /// `nil` when it has become a symbolic link or a socket, which cannot
    /// be opened so (`ELOOP`, `ENXIO`). O_NONBLOCK and O_NOCTTY: should it
    /// have become a FIFO or a terminal, opening it neither waits nor
    /// adopts it. What it has become is for the caller to check.
    package static func openListedFile(
        _ name: UnsafePointer<CChar>, in directory: CInt, path: Syscall.Path
    ) throws(FileWrapperError) -> (fd: CInt, info: stat)? {
        let fd: CInt
        do throws(FileWrapperError) {
            fd = try Syscall.open(cName: name, in: directory, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, path: path)
        } catch where error.errno == .tooManySymbolicLinkLevels || error.errno == .noSuchAddressOrDevice {
            return nil
        }
        do throws(FileWrapperError) {
            return (fd, try Syscall.status(of: fd, path: path))
        } catch {
            Syscall.close(fd)
            throw error
        }
    }

    /// The names of one directory as `String` keys (a `FileWrapper`'s
    /// children, an archive's entries), refused when a name is not UTF-8
    /// or is canonically equivalent to another of the directory, which
    /// Swift would take for one key.
    struct StringNames {
        private let cursor: DirectoryCursor
        private var seen = Set<String>()

        /// For the names of the cursor's current directory.
        init(at cursor: DirectoryCursor, capacity: Int = 0) {
            self.cursor = cursor
            seen.reserveCapacity(capacity)
        }

        /// The name `bytes` as a key, once it is known to be one.
        mutating func key(_ bytes: [UInt8]) throws(FileWrapperError) -> String {
            guard let name = String(validating: bytes, as: UTF8.self) else {
                throw FileWrapperError(
                    .invalidName, path: cursor.path(bytes: bytes),
                    detail: "the name is not valid UTF-8, so it cannot be a String key")
            }
            let (inserted, other) = seen.insert(name)
            guard inserted else {
                throw FileWrapperError(
                    .duplicateName, path: cursor.path() + "/" + PathDisplay.escapedScalars(other),
                    otherPath: cursor.path() + "/" + PathDisplay.escapedScalars(name),
                    detail: "the two names are canonically equivalent, so Swift sees one String key")
            }
            return name
        }
    }
}
