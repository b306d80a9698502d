import Glibc

/// The chain of open directories from a root down to the one being worked
/// on, for walking trees of any depth without recursion and without
/// running out of descriptors.
///
/// At most ``maximumOpen`` descriptors stay open. When a walk goes deeper,
/// the shallowest ones are closed; coming back up, a closed directory is
/// reopened through `..` of its child (`openat(child, "..")`) and checked to
/// be the same inode, so a directory moved meanwhile is an error, never a
/// silent switch to another tree. The cursor owns its descriptors and
/// closes them when it ends.
package final class DirectoryCursor {
    static let maximumOpen = 48

    private struct Level {
        var name: [UInt8]
        var fd: CInt
        let device: UInt64
        let inode: UInt64
    }

    private let rootPath: String
    private var levels: [Level] = []
    /// Levels below this index have had their descriptors closed.
    private var lowestOpen = 0

    /// Takes ownership of `fd`, an open directory at `path`.
    package init(root fd: CInt, path: String) throws(FileWrapperError) {
        rootPath = path
        let info: stat
        do throws(FileWrapperError) {
            info = try Syscall.status(of: fd, path: { path })
        } catch {
            Syscall.close(fd)
            throw error
        }
        levels.append(Level(name: [], fd: fd, device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
    }

    deinit {
        for level in levels where level.fd >= 0 {
            Syscall.close(level.fd)
        }
    }

    /// The descriptor of the current directory.
    package var current: CInt { levels[levels.count - 1].fd }

    /// How many levels below the root the cursor is.
    var depth: Int { levels.count - 1 }

    /// The descriptor of the directory `depth` levels below the root, on
    /// the way to the current one; `nil` when it was closed to stay under
    /// ``maximumOpen``.
    func descriptor(atDepth depth: Int) -> CInt? {
        let fd = levels[depth].fd
        return fd >= 0 ? fd : nil
    }

    /// The name of the current directory in its parent (empty at the root).
    var currentName: [UInt8] { levels[levels.count - 1].name }

    /// The display path of `name` inside the current directory, or of the
    /// current directory itself.
    package func path(_ name: String? = nil) -> String {
        var names = levels.dropFirst().map { PathDisplay.text($0.name) }
        if let name {
            names.append(PathDisplay.text(Array(name.utf8)))
        }
        return PathDisplay.join(rootPath, names)
    }

    /// The display path of a name given as bytes inside the current directory.
    package func path(bytes name: [UInt8]) -> String {
        PathDisplay.join(path(), [PathDisplay.text(name)])
    }

    /// Makes `fd`, an open subdirectory of the current directory called
    /// `name`, the current directory, and returns what `fstat` says of it.
    /// The cursor takes ownership of `fd`.
    @discardableResult
    package func enter(_ fd: CInt, name: [UInt8]) throws(FileWrapperError) -> stat {
        let info: stat
        do throws(FileWrapperError) {
            info = try Syscall.status(of: fd, path: { path(bytes: name) })
        } catch {
            Syscall.close(fd)
            throw error
        }
        levels.append(Level(name: name, fd: fd, device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
        if levels.count - lowestOpen > Self.maximumOpen {
            Syscall.close(levels[lowestOpen].fd)
            levels[lowestOpen].fd = -1
            lowestOpen += 1
        }
        return info
    }

    /// Returns to the parent of the current directory.
    package func leave() throws(FileWrapperError) {
        precondition(levels.count > 1, "DirectoryCursor.leave() at the root")
        let child = levels.removeLast()
        defer { Syscall.close(child.fd) }
        let parentIndex = levels.count - 1
        guard levels[parentIndex].fd < 0 else { return }
        let fd = try Syscall.open("..", in: child.fd, flags: O_RDONLY | O_DIRECTORY, path: { path() })
        let info: stat
        do throws(FileWrapperError) {
            info = try Syscall.status(of: fd, path: { path() })
        } catch {
            Syscall.close(fd)
            throw error
        }
        guard UInt64(info.st_dev) == levels[parentIndex].device, UInt64(info.st_ino) == levels[parentIndex].inode else {
            Syscall.close(fd)
            throw FileWrapperError(.changedOnDisk, path: path(), detail: "the directory was moved while it was being walked")
        }
        levels[parentIndex].fd = fd
        lowestOpen = parentIndex
    }
}
