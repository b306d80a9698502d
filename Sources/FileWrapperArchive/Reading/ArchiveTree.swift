import FileWrapperKit

/// The tree an archive's entries make, put together as the readers that
/// build a FileWrapper tree do it (``ArchiveReader`` in memory,
/// ``ZipContainer`` lazily): missing parent directories made as they are
/// needed, and refused with an error naming the archive and the entry: an
/// entry at the root itself, a path or a directory stored twice, and two
/// names that are one Swift `String` in different Unicode spellings.
struct ArchiveTree {
    let archive: String
    let root = FileWrapper(directoryWithFileWrappers: [:])
    /// Directories by path (their bytes), to find parents; those made only
    /// as parents are marked, so that a later entry for them is not a duplicate.
    private var directories: [PathKey: (wrapper: FileWrapper, implicit: Bool)] = [:]

    init(archive: String) {
        self.archive = archive
        directories[PathKey([])] = (root, true)
    }

    /// Adds the directory entry at `names`, or gives its attributes to the
    /// directory already there: made as a parent, or stored before as a
    /// directory (every tar extracts a repeated directory as one, with the
    /// attributes of its last entry).
    mutating func addDirectory(at names: [EntryName], attributes: FileWrapper.Attributes, entry: String) throws {
        let key = PathKey(names)
        if let existing = directories[key] {
            existing.wrapper.attributes = attributes
            directories[key] = (existing.wrapper, false)
            return
        }
        let directory = FileWrapper(directoryWithFileWrappers: [:])
        directory.attributes = attributes
        try insert(directory, at: names, entry: entry)
        directories[key] = (directory, false)
    }

    /// Whether the directory at `key` was made only as a parent: no entry names it.
    func isImplicitDirectory(_ key: PathKey) -> Bool {
        directories[key]?.implicit == true
    }

    /// Adds `wrapper` at `names`, making missing parent directories.
    mutating func insert(_ wrapper: FileWrapper, at names: [EntryName], entry: String) throws {
        guard let name = names.last else {
            throw ArchiveError(.unsafePath, archive: archive, entry: entry, message: "the entry would replace the archive's root")
        }
        var parent = root
        for depth in 0..<(names.count - 1) {
            let key = PathKey(names[...depth])
            if let directory = directories[key] {
                parent = directory.wrapper
                continue
            }
            try checkNew(names[depth], in: parent, entry: entry)
            let directory = FileWrapper(directoryWithFileWrappers: [:])
            directory.preferredFilename = names[depth].text
            parent.addFileWrapper(directory)
            directories[key] = (directory, true)
            parent = directory
        }
        try checkNew(name, in: parent, entry: entry)
        wrapper.preferredFilename = name.text
        parent.addFileWrapper(wrapper)
    }

    /// Throws unless `parent` has no child named `name`, nor one whose name
    /// is the same Swift `String` in another Unicode spelling: a FileWrapper
    /// keys its children by `String`, so it cannot hold both.
    private func checkNew(_ name: EntryName, in parent: FileWrapper, entry: String) throws {
        guard let siblings = parent.fileWrappers, let index = siblings.index(forKey: name.text) else { return }
        let existing = siblings.keys[index]
        let detail = EntryName(existing) == name
            ? "the archive has this path twice"
            : "the name is the same Swift String as \"\(PathDisplay.escapedScalars(existing))\" (a different Unicode spelling)"
        throw ArchiveError(.duplicateEntry, archive: archive, entry: entry, message: detail)
    }
}
