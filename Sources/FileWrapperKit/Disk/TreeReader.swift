import Foundation
import Glibc

/// Reads a file, a symbolic link or a whole directory tree from disk into a
/// wrapper, walking directories through descriptors and without recursion.
///
/// Kinds, names and attributes of every entry are read at once; regular
/// file contents only with `.immediate`. Reading into an existing wrapper
/// keeps the child objects whose names and kinds are still there.
struct TreeReader {
    let options: FileWrapper.ReadingOptions

    /// Makes `wrapper` hold the item at `path` (not following a final symlink).
    func read(_ path: String, into wrapper: FileWrapper) throws(FileWrapperError) {
        let info = try Syscall.status(of: path, in: AT_FDCWD, path: { path })
        let (parentPath, name) = Self.split(path)
        switch FileKind(mode: info.st_mode) {
        case .regularFile:
            let xattrs = try ExtendedAttributes.read(.path(path), displayPath: { path })
            let file = DiskFile(directory: DiskLocation(root: parentPath), name: name, identity: FileIdentity(info))
            wrapper.become(.regularFile)
            wrapper.attributes = FileWrapper.Attributes(info, extendedAttributes: xattrs)
            wrapper.contents = RegularFileContents(disk: file, mayMap: !options.contains(.withoutMapping))
            if options.contains(.immediate) {
                _ = try wrapper.loadContents()
            }
        case .symbolicLink:
            wrapper.become(.symbolicLink)
            wrapper.attributes = FileWrapper.Attributes(info, extendedAttributes: [:])
            wrapper.linkTarget = try Syscall.symbolicLinkTarget(ofBytes: Array(path.utf8), in: AT_FDCWD, path: { path })
        case .directory:
            var walk = try DirectoryWalk<DiskLocation, Subdirectory>(root: path)
            let cursor = walk.cursor
            let xattrs = try ExtendedAttributes.read(.descriptor(cursor.current), displayPath: { path })
            wrapper.become(.directory)
            wrapper.attributes = FileWrapper.Attributes(try Syscall.status(of: cursor.current, path: { path }), extendedAttributes: xattrs)
            try readTree(into: wrapper, walk: &walk, location: DiskLocation(root: path))
        case nil:
            throw FileWrapperError(.unsupportedFileType, path: path, detail: "not a regular file, directory or symbolic link")
        }
    }

    /// A subdirectory whose own entries are still to be read: its name
    /// as bytes and as its parent's key, and its wrapper.
    private struct Subdirectory {
        let name: [UInt8]
        let key: String
        let wrapper: FileWrapper
    }

    /// Reads the directory at the walk's root, then every directory below
    /// it, depth first.
    private func readTree(
        into root: FileWrapper, walk: inout DirectoryWalk<DiskLocation, Subdirectory>, location: DiskLocation
    ) throws(FileWrapperError) {
        walk.push(location, children: try readChildren(of: root, cursor: walk.cursor, location: location))
        while let (subdirectory, parent) = try walk.next() {
            try walk.enter(subdirectory.name)
            let childLocation = DiskLocation(name: subdirectory.key, in: parent)
            walk.push(childLocation, children: try readChildren(of: subdirectory.wrapper, cursor: walk.cursor, location: childLocation))
        }
    }

    /// Reads the entries of the directory at the cursor into `directory`'s
    /// children and returns the subdirectories, whose own entries are not
    /// read yet.
    private func readChildren(
        of directory: FileWrapper, cursor: DirectoryCursor, location: DiskLocation
    ) throws(FileWrapperError) -> [Subdirectory] {
        let fd = cursor.current
        let names = try Syscall.names(inDirectory: fd, path: { cursor.path() })
        let previous = directory.children
        var children: [String: FileWrapper] = [:]
        children.reserveCapacity(names.count)
        var subdirectories: [Subdirectory] = []
        var keys = DirectoryListing.StringNames(at: cursor, capacity: names.count)

        for bytes in names {
            let name = try keys.key(bytes)
            let info = try Syscall.status(of: name, in: fd, path: { cursor.path(name) })
            let kind = FileKind(mode: info.st_mode)
            let child = Self.reusable(previous[name], for: kind) ?? FileWrapper(kind: .regularFile)
            switch kind {
            case .regularFile:
                let xattrs = try ExtendedAttributes.read(name, in: fd, path: { cursor.path(name) })
                try readFile(name, info: info, into: child, directory: fd, location: location, cursor: cursor)
                child.attributes = FileWrapper.Attributes(info, extendedAttributes: xattrs)
            case .symbolicLink:
                child.become(.symbolicLink)
                child.attributes = FileWrapper.Attributes(info, extendedAttributes: [:])
                child.linkTarget = try Syscall.symbolicLinkTarget(ofBytes: bytes, in: fd, path: { cursor.path(name) })
            case .directory:
                let xattrs = try ExtendedAttributes.read(name, in: fd, path: { cursor.path(name) })
                child.become(.directory)
                child.attributes = FileWrapper.Attributes(info, extendedAttributes: xattrs)
                subdirectories.append(Subdirectory(name: bytes, key: name, wrapper: child))
            case nil:
                throw FileWrapperError(
                    .unsupportedFileType, path: cursor.path(name),
                    detail: "a device node, FIFO or socket cannot be held in a file wrapper")
            }
            child.adoptName(name)
            child.addParent(directory)
            children[name] = child
        }
        for (name, child) in previous where children[name] !== child {
            child.removeParent(directory)
        }
        directory.children = children
        return subdirectories
    }

    /// Points a regular-file wrapper at `name`, reading the bytes now with
    /// `.immediate`. Bytes already in memory are kept if the file is the very
    /// one they were read from.
    private func readFile(
        _ name: String, info: stat, into wrapper: FileWrapper, directory fd: CInt,
        location: DiskLocation, cursor: DirectoryCursor
    ) throws(FileWrapperError) {
        let identity = FileIdentity(info)
        let file = DiskFile(directory: location, name: name, identity: identity)
        let kept = wrapper.kind == .regularFile && wrapper.contents.disk.contains { $0.identity == identity }
            ? wrapper.contents.data : nil
        wrapper.become(.regularFile)
        wrapper.contents = RegularFileContents(disk: file, mayMap: !options.contains(.withoutMapping))
        wrapper.contents.data = kept
        guard options.contains(.immediate), kept == nil else { return }
        let fileFd = try Syscall.open(name, in: fd, flags: O_RDONLY | O_NOFOLLOW, path: { cursor.path(name) })
        defer { Syscall.close(fileFd) }
        guard FileIdentity(try Syscall.status(of: fileFd, path: { cursor.path(name) })) == identity else {
            throw FileWrapperError(.changedOnDisk, path: cursor.path(name), detail: "the file changed while it was read")
        }
        wrapper.contents.data = try FileContentsReader.read(
            fileFd, size: Int(identity.size), mayMap: !options.contains(.withoutMapping), path: { cursor.path(name) })
    }

    /// `wrapper` if it can be reused for an entry of `kind`.
    private static func reusable(_ wrapper: FileWrapper?, for kind: FileKind?) -> FileWrapper? {
        guard let wrapper else { return nil }
        switch (wrapper.kind, kind) {
        case (.regularFile, .regularFile), (.directory, .directory), (.symbolicLink, .symbolicLink): return wrapper
        default: return nil
        }
    }

    /// A path's parent directory and last component.
    static func split(_ path: String) -> (parent: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let name = String(path[path.index(after: slash)...])
        let parent = slash == path.startIndex ? "/" : String(path[..<slash])
        return (parent, name)
    }
}
