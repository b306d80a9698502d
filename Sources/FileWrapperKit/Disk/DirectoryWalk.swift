import Glibc

/// The one walk of a directory tree on disk, which ``TreeReader``,
/// ``DiskTreeStream`` and ``DiskTreeWalk`` build on: depth first with an
/// explicit stack, never recursion, through a ``DirectoryCursor``, so that
/// any depth costs at most ``DirectoryCursor/maximumOpen`` descriptors;
/// each subdirectory is opened beneath its parent's descriptor
/// (`openat(O_DIRECTORY | O_NOFOLLOW)`), never by path and never through a
/// symbolic link, and names are bytes.
///
/// A frame is a directory entered: the walker's `Context` for it and its
/// children still to visit (`Child`: whatever the walker lists, every
/// entry or only the subdirectories), visited last first. The walker takes
/// each with ``next()``; to descend into a subdirectory it calls
/// ``enter(_:)`` and then ``push(_:children:)`` with what it listed there.
package struct DirectoryWalk<Context, Child> {
    private struct Frame {
        let context: Context
        var pending: [Child]
    }

    /// The directories from the root to the current one.
    package let cursor: DirectoryCursor
    /// Frame `i` is the directory at the cursor's depth `i`.
    private var frames: [Frame] = []

    /// A walk from the cursor's current directory, which is its root.
    package init(cursor: DirectoryCursor) {
        self.cursor = cursor
    }

    /// The walk of the directory at `path`, opened with
    /// `openat(AT_FDCWD, O_DIRECTORY | O_NOFOLLOW)`: a final symbolic link
    /// is not followed.
    package init(root path: String) throws(FileWrapperError) {
        let fd = try Syscall.open(path, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: { path })
        self.init(cursor: try DirectoryCursor(root: fd, path: path))
    }

    /// Adds the directory just entered (the root first): the walker's
    /// `context` for it and its `children` to visit, last first.
    package mutating func push(_ context: Context, children: [Child]) {
        frames.append(Frame(context: context, pending: children))
    }

    /// The next child to visit and the context of its directory, which is
    /// then the cursor's current one; directories whose children are all
    /// visited are left on the way. `nil` when the walk is over.
    package mutating func next() throws(FileWrapperError) -> (child: Child, directory: Context)? {
        while let top = frames.indices.last {
            if let child = frames[top].pending.popLast() {
                return (child, frames[top].context)
            }
            frames.removeLast()
            if !frames.isEmpty { try cursor.leave() }
        }
        return nil
    }

    /// Opens `name`, a subdirectory of the current directory, makes it the
    /// current one and returns what `fstat` says of it.
    @discardableResult
    package func enter(_ name: [UInt8]) throws(FileWrapperError) -> stat {
        let cursor = cursor
        let fd = try DirectoryListing.openSubdirectory(name, in: cursor.current, path: { cursor.path(bytes: name) })
        return try cursor.enter(fd, name: name)
    }

    /// Takes the child still to visit that is nearest the root (it likely
    /// holds the most work) away from this walk, for another thread to
    /// walk, with its directory's context and descriptor; only while this
    /// walk keeps another child to visit, so that a chain of single
    /// subdirectories does not pass between threads. `nil` when there is
    /// none to give, or its directory's descriptor was closed.
    package mutating func handOver() -> (child: Child, directory: Context, parent: CInt)? {
        var toVisit = 0
        for frame in frames where toVisit < 2 {
            toVisit += frame.pending.count
        }
        guard toVisit > 1,
            let depth = frames.firstIndex(where: { !$0.pending.isEmpty }),
            let parent = cursor.descriptor(atDepth: depth)
        else { return nil }
        return (frames[depth].pending.removeFirst(), frames[depth].context, parent)
    }
}
