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
/// A directory not held is opened from the root in one call that goes
/// through no symlink (``Syscall/openDirectory(beneath:in:path:)``), so no
/// path is ever resolved through a symlink, and the cost of a miss does not
/// grow with the number of system calls a depth would take. The cache holds
/// at most `capacity` of them past each ``trim()``, which the unpacker calls
/// between entries.
final class DirectoryDescriptors {
    private let root: OpenDirectory
    private var open: [PathKey: OpenDirectory] = [:]
    private let capacity = 64
    /// Builds a path for an error message.
    private let display: ([EntryName]) -> String

    init(root: OpenDirectory, display: @escaping ([EntryName]) -> String) {
        self.root = root
        self.display = display
    }

    /// The directory `names` (the root when empty).
    func directory(_ names: ArraySlice<EntryName>) throws(FileWrapperError) -> OpenDirectory {
        if names.isEmpty { return root }
        let key = PathKey(names)
        if let directory = open[key] { return directory }
        let directory = OpenDirectory(try Syscall.openDirectory(beneath: key.bytes, in: root.fd, path: { self.display(Array(names)) }))
        open[key] = directory
        return directory
    }

    /// Holds `directory`, just opened, as the one at `names`.
    func remember(_ directory: OpenDirectory, at names: ArraySlice<EntryName>) {
        open[PathKey(names)] = directory
    }

    /// Lets go of every directory but the root when more than `capacity`
    /// are held; each closes once nothing else holds it.
    func trim() {
        guard open.count > capacity else { return }
        open.removeAll(keepingCapacity: true)
    }
}
