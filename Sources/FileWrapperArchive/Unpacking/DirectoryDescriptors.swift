import FileWrapperKit
import Glibc

/// An open directory, closed when the last reference to it goes: the cache
/// of ``DirectoryDescriptors`` and the files queued for ``FileWorkers``
/// share it, so the cache can let go of it while a worker still writes there.
final class OpenDirectory: Sendable {
    let fd: CInt

    /// Takes ownership of `fd`.
    init(_ fd: CInt) {
        self.fd = fd
    }

    deinit {
        Syscall.close(fd)
    }
}

/// Open descriptors of the directories an unpack writes into, by path below
/// its root, so that consecutive entries in one folder reuse one descriptor.
/// Every directory is opened relative to its parent with `O_NOFOLLOW`, so no
/// path is ever resolved through a symlink. The cache holds at most
/// `capacity` of them past each ``trim()``, which the unpacker calls between
/// entries.
final class DirectoryDescriptors {
    private let root: OpenDirectory
    private var open: [PathKey: OpenDirectory] = [:]
    private let capacity = 64
    /// Builds a path for an error message.
    private let display: ([String]) -> String

    init(root: OpenDirectory, display: @escaping ([String]) -> String) {
        self.root = root
        self.display = display
    }

    /// The directory `names` (the root when empty).
    func directory(_ names: ArraySlice<String>) throws(FileWrapperError) -> OpenDirectory {
        if names.isEmpty { return root }
        let key = UnpackedTree.key(names)
        if let directory = open[key] { return directory }
        let parent = try directory(names.dropLast())
        let directory = OpenDirectory(try Syscall.openDirectory(names.last!, in: parent.fd, path: { self.display(Array(names)) }))
        open[key] = directory
        return directory
    }

    /// Lets go of every directory but the root when more than `capacity`
    /// are held; each closes once nothing else holds it.
    func trim() {
        guard open.count > capacity else { return }
        open.removeAll(keepingCapacity: true)
    }
}
