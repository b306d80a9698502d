import FileWrapperKit
import Foundation

/// Reads an archive (its format detected from the bytes, whatever the name;
/// the formats of ``ArchiveReadFormats/standard`` unless asked for more)
/// into a FileWrapper tree in memory, within ``ArchiveReadLimits``.
///
/// Refused, with an error that names the archive and the entry: absolute
/// paths and `..` components, device nodes, FIFOs and sockets, encrypted
/// entries, two entries at one path (or at two paths that are one Swift
/// `String`), a hard link to anything but an earlier regular file, and
/// damaged or truncated data.
///
/// Each name of a hard-linked file is a copy holding the file's contents,
/// whichever of its entries carries them (SVR4 cpio stores them with the
/// last link), and the attributes of that entry.
public enum ArchiveReader {
    /// The tree in the archive file at `url`: a directory wrapper whose
    /// children are the archive's top-level entries.
    ///
    /// - Parameters:
    ///   - url: The archive file.
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    /// - Returns: The root directory wrapper, its contents in memory.
    /// - Throws: ``ArchiveError`` naming the archive, and the entry where there
    ///   is one, for each refusal above, when the archive cannot be opened or
    ///   read, is in a format left out of `formats`, or passes a limit.
    public static func fileWrapper(
        contentsOf url: URL, formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = .inMemory
    ) throws -> FileWrapper {
        let handle = try ArchiveReadHandle.reading(url, formats: formats, limits: limits)
        return try TreeBuilder(handle: handle, limits: limits).build()
    }

    /// The tree in the archive that the open descriptor `fd` brings from
    /// its current offset: a stream (a pipe, a socket) as it comes, a zip
    /// or 7z one through an unnamed spool. The caller keeps and closes
    /// `fd`; `name` stands for the archive in errors.
    ///
    /// - Parameters:
    ///   - fd: An open descriptor, read from its current offset.
    ///   - name: The archive's name in errors.
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    /// - Returns: The root directory wrapper, its contents in memory.
    /// - Throws: ``ArchiveError``, as ``fileWrapper(contentsOf:formats:limits:)``.
    public static func fileWrapper(
        readingFrom fd: CInt, name: String, formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = .inMemory
    ) throws -> FileWrapper {
        let handle = try ArchiveReadHandle.reading(fileDescriptor: fd, name: name, formats: formats, limits: limits)
        return try TreeBuilder(handle: handle, limits: limits).build()
    }

    /// The tree in the archive `data`; `name` stands for it in errors.
    ///
    /// - Parameters:
    ///   - data: The archive's bytes.
    ///   - name: The archive's name in errors.
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    /// - Returns: The root directory wrapper, its contents in memory.
    /// - Throws: ``ArchiveError``, as ``fileWrapper(contentsOf:formats:limits:)``.
    public static func fileWrapper(
        from data: Data, name: String = "archive", formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = .inMemory
    ) throws -> FileWrapper {
        let handle = try ArchiveReadHandle(name: name, formats: formats, limits: limits)
        try handle.open(data: data)
        return try TreeBuilder(handle: handle, limits: limits).build()
    }
}

/// Builds a tree from an archive's entries, one at a time.
///
/// Each member of a hard-link group is a copy of the group's file. A link
/// that carries contents gives them, and its attributes, to the group
/// (``LinkGroups``); the members made before it are given them at the end,
/// once each, however many links carry contents.
private struct TreeBuilder {
    /// A link group's file as the entries so far leave it, and its members,
    /// each with the number of the contents it was made with.
    struct GroupFile {
        var contents: Data
        var attributes: FileWrapper.Attributes
        var members: [(wrapper: FileWrapper, version: Int)]
        /// How many links have carried contents.
        var version = 0
    }

    let handle: ArchiveReadHandle
    let limits: ArchiveReadLimits
    private var tree: ArchiveTree
    /// Regular files and hard links by path (their bytes), for the hard links that name them.
    private var groups = LinkGroups()
    /// Each link group's file, by group number.
    private var groupFiles: [GroupFile] = []
    private var entries = 0
    private var budget: ContentBudget

    init(handle: ArchiveReadHandle, limits: ArchiveReadLimits) {
        self.handle = handle
        self.limits = limits
        budget = ContentBudget(limits: limits)
        tree = ArchiveTree(archive: handle.name)
    }

    consuming func build() throws -> FileWrapper {
        while let header = try handle.nextHeader() {
            entries += 1
            guard entries <= limits.maxEntries else {
                throw error(.limitExceeded, header.rawPath, "the archive has more than \(limits.maxEntries) entries", limit: .maxEntries)
            }
            try add(header)
        }
        for group in groupFiles {
            for member in group.members where member.version != group.version {
                member.wrapper.replaceRegularFileContents(with: group.contents)
                member.wrapper.attributes = group.attributes
            }
        }
        return tree.root
    }

    private mutating func add(_ header: ArchiveReadHandle.Header) throws {
        guard let path = header.path else {
            throw error(.unsafePath, header.rawPath, "the name cannot be decoded as UTF-8")
        }
        guard !header.isEncrypted else {
            throw error(.encrypted, path, "the entry is encrypted")
        }
        let names = try EntryPath(path, archive: handle.name, limits: limits).components
        let attributes = FileWrapper.Attributes(
            permissions: header.permissions,
            modificationDate: FileTimestamp(seconds: header.modified.seconds, nanoseconds: header.modified.nanoseconds),
            owner: header.owner.map { FileOwner(userID: $0.user, groupID: $0.group) })

        if let target = header.hardlinkTarget {
            let targetNames = try EntryPath(target, entry: path, role: "the hard link's target", archive: handle.name, limits: limits).components
            guard let group = groups.group(at: PathKey(targetNames).bytes) else {
                throw error(.unsafePath, path, "the hard link's target \"\(target)\" is not an earlier regular file")
            }
            if header.carriesContents {
                groupFiles[group].contents = try readContents(entry: path)
                groupFiles[group].attributes = attributes
                groupFiles[group].version += 1
            }
            let copy = FileWrapper(regularFileWithContents: groupFiles[group].contents)
            copy.attributes = groupFiles[group].attributes
            try tree.insert(copy, at: names, entry: path)
            groups.add(PathKey(names).bytes, to: group)
            groupFiles[group].members.append((copy, groupFiles[group].version))
            return
        }

        switch header.type & S_IFMT {
        case S_IFDIR:
            try tree.addDirectory(at: names, attributes: attributes, entry: path)
        case S_IFREG:
            let contents = try readContents(entry: path)
            let file = FileWrapper(regularFileWithContents: contents)
            file.attributes = attributes
            try tree.insert(file, at: names, entry: path)
            _ = groups.startGroup(at: PathKey(names).bytes)
            groupFiles.append(GroupFile(contents: contents, attributes: attributes, members: [(file, 0)]))
        case S_IFLNK:
            let target = header.symlinkTarget ?? []
            guard target.count <= limits.maxLinkLength else {
                throw error(.limitExceeded, path, "the symlink's target is longer than \(limits.maxLinkLength) bytes", limit: .maxLinkLength)
            }
            let link = FileWrapper(symbolicLinkWithDestinationBytes: target)
            link.attributes = attributes
            try tree.insert(link, at: names, entry: path)
        default:
            throw error(.unsupportedEntry, path, "device nodes, FIFOs and sockets are not supported")
        }
    }

    /// The current entry's bytes, counted against the limits as they come.
    private mutating func readContents(entry: String) throws -> Data {
        var data = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try handle.readData(into: buffer, entry: entry)
            if count == 0 { return data }
            try budget.spend(count, entry: entry, from: handle)
            data.append(contentsOf: buffer[..<count])
        }
    }

    private func error(
        _ code: ArchiveError.Code, _ entry: String, _ message: String, limit: ArchiveReadLimits.Limit? = nil
    ) -> ArchiveError {
        ArchiveError(code, archive: handle.name, entry: entry, message: message, limit: limit)
    }
}
