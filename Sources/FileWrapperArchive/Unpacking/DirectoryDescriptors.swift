import FileWrapperKit
import Glibc

/// Open descriptors of the directories an unpack writes into, by path below
/// its root, so that consecutive entries in one folder reuse one descriptor.
/// Every directory is opened relative to its parent with `O_NOFOLLOW`, so no
/// path is ever resolved through a symlink. Descriptors stay valid until
/// ``trim()``, which the unpacker calls between entries.
final class DirectoryDescriptors {
    private let root: CInt
    private var open: [[UInt8]: CInt] = [:]
    private let capacity = 64
    /// Builds a path for an error message.
    private let display: ([String]) -> String

    /// `root` stays owned by the caller.
    init(root: CInt, display: @escaping ([String]) -> String) {
        self.root = root
        self.display = display
    }

    deinit {
        for fd in open.values { Syscall.close(fd) }
    }

    /// The descriptor of the directory `names` (the root when empty).
    func descriptor(of names: ArraySlice<String>) throws(FileWrapperError) -> CInt {
        if names.isEmpty { return root }
        let key = UnpackedTree.key(names)
        if let fd = open[key] { return fd }
        let parent = try descriptor(of: names.dropLast())
        let fd = try Syscall.openDirectory(names.last!, in: parent, path: { self.display(Array(names)) })
        open[key] = fd
        return fd
    }

    /// Closes every descriptor but the root's when more than `capacity` are open.
    func trim() {
        guard open.count > capacity else { return }
        for fd in open.values { Syscall.close(fd) }
        open.removeAll(keepingCapacity: true)
    }
}
