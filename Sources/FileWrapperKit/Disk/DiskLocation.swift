import Glibc

/// Where a directory read from disk lives: its name and its parent's
/// location, up to the root's path. One is shared by all the files read
/// from that directory, so remembering where every file of a tree came from
/// costs memory in proportion to the entry count, not to path lengths.
final class DiskLocation {
    /// `nil` at the root.
    private var parent: DiskLocation?
    /// The root's path, or a name inside the parent.
    let name: String

    init(root path: String) {
        parent = nil
        name = path
    }

    init(name: String, in parent: DiskLocation) {
        self.parent = parent
        self.name = name
    }

    /// Releases a long chain of parents one by one, not recursively, so that
    /// a tree 10,000 directories deep cannot overflow the stack.
    deinit {
        var next = parent
        parent = nil
        while var node = next {
            next = nil
            guard isKnownUniquelyReferenced(&node) else { break }
            next = node.parent
            node.parent = nil
        }
    }

    /// The names from the root down to this directory; the first is the root's path.
    var components: [String] {
        var names: [String] = []
        var node: DiskLocation? = self
        while let current = node {
            names.append(current.name)
            node = current.parent
        }
        return names.reversed()
    }

    /// The path of `name` inside this directory.
    func path(of name: String) -> String {
        let names = components
        return PathDisplay.join(names[0], Array(names.dropFirst()) + [name])
    }

    /// Opens `name` inside this directory with `flags` (`O_NOFOLLOW` added).
    /// A path longer than one system call takes is opened a directory at a
    /// time.
    func open(_ name: String, flags: CInt) throws(FileWrapperError) -> CInt {
        let names = components + [name]
        let fullPath = PathDisplay.join(names[0], Array(names.dropFirst()))
        if fullPath.utf8.count < Int(PATH_MAX) - 1 {
            return try Syscall.open(fullPath, in: AT_FDCWD, flags: flags | O_NOFOLLOW, path: { fullPath })
        }
        var directory = try Syscall.open(names[0], in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { names[0] })
        defer { Syscall.close(directory) }
        for index in 1..<(names.count - 1) {
            let next = try Syscall.openDirectory(names[index], in: directory, path: {
                PathDisplay.join(names[0], Array(names[1...index]))
            })
            Syscall.close(directory)
            directory = next
        }
        return try Syscall.open(name, in: directory, flags: flags | O_NOFOLLOW, path: { fullPath })
    }
}

/// A regular file on disk whose bytes a wrapper's contents equal.
struct DiskFile {
    let directory: DiskLocation
    let name: String
    let identity: FileIdentity

    var path: String { directory.path(of: name) }

    /// Opens the file for reading and checks that it is still the file that
    /// was read (same inode, size and modification time).
    func open() throws(FileWrapperError) -> CInt {
        let fd = try directory.open(name, flags: O_RDONLY)
        do throws(FileWrapperError) {
            let info = try Syscall.status(of: fd, path: { path })
            guard FileIdentity(info) == identity else {
                throw FileWrapperError(.changedOnDisk, path: path, detail: "the file changed on disk after it was read")
            }
            return fd
        } catch {
            Syscall.close(fd)
            throw error
        }
    }
}
