import FileWrapperKit
import Foundation

extension Manifest {
    /// The manifest of the archive file at `url`, read as it streams:
    /// nothing is extracted, and with `hashingContents` each file is hashed
    /// as its bytes are decoded. Every member of a hard-link group shows the
    /// file an unpack makes: the size and digest of the contents, and the
    /// mode, time and owner, of the group's last member that carries
    /// contents (`LinkGroups`). A path stored more than once shows its
    /// last entry, as tar extraction leaves it, and is listed in
    /// `repeatedPaths`. Limits default to those of reading (4 GiB of
    /// contents, 2,000,000 entries). `progress` counts entries and bytes read.
    ///
    /// - Parameters:
    ///   - url: The archive file.
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    ///   - hashingContents: Whether to hash every file's contents.
    ///   - progress: Counts entries and bytes read; nil for none.
    /// - Throws: ``ArchiveError`` when the archive cannot be opened or read,
    ///   is in a format left out of `formats`, or passes a limit;
    ///   `ManifestError` when its entries cannot make a tree (a path that
    ///   leaves it, an entry below a file).
    public init(
        archiveAt url: URL, formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = .reading,
        hashingContents: Bool = true, progress: ManifestProgress? = nil
    ) throws {
        let handle = try ArchiveReadHandle.reading(url, formats: formats, limits: limits)
        self = try ArchiveManifestReader(handle: handle, limits: limits, hashingContents: hashingContents, progress: progress).read()
    }

    /// The manifest of the archive that the open descriptor `fd` brings
    /// from its current offset, read as ``init(archiveAt:formats:limits:hashingContents:progress:)``
    /// reads a file: a stream (a pipe, a socket) as it comes, a zip or 7z
    /// one through an unnamed spool. The caller keeps and closes `fd`;
    /// `name` stands for the archive in errors.
    ///
    /// - Parameters:
    ///   - fd: An open descriptor, read from its current offset.
    ///   - name: The archive's name in errors.
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    ///   - hashingContents: Whether to hash every file's contents.
    ///   - progress: Counts entries and bytes read; nil for none.
    /// - Throws: ``ArchiveError`` and `ManifestError`, as
    ///   ``init(archiveAt:formats:limits:hashingContents:progress:)``.
    public init(
        archiveFrom fd: CInt, name: String, formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = .reading,
        hashingContents: Bool = true, progress: ManifestProgress? = nil
    ) throws {
        let handle = try ArchiveReadHandle.reading(fileDescriptor: fd, name: name, formats: formats, limits: limits)
        self = try ArchiveManifestReader(handle: handle, limits: limits, hashingContents: hashingContents, progress: progress).read()
    }

    /// The manifest of the archive `data`; `name` stands for it in errors.
    ///
    /// - Parameters:
    ///   - data: The archive's bytes.
    ///   - name: The archive's name in errors.
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    ///   - hashingContents: Whether to hash every file's contents.
    /// - Throws: ``ArchiveError`` and `ManifestError`, as
    ///   ``init(archiveAt:formats:limits:hashingContents:progress:)``.
    public init(
        archiveData data: Data, name: String, formats: ArchiveReadFormats = .standard,
        limits: ArchiveReadLimits = .reading, hashingContents: Bool = true
    ) throws {
        let handle = try ArchiveReadHandle(name: name, formats: formats, limits: limits)
        try handle.open(data: data)
        self = try ArchiveManifestReader(handle: handle, limits: limits, hashingContents: hashingContents, progress: nil).read()
    }
}

/// Feeds an archive's entries to a ``ManifestBuilder`` as they stream.
struct ArchiveManifestReader {
    let handle: any ArchiveEntryStream
    let limits: ArchiveReadLimits
    let hashingContents: Bool
    let progress: ManifestProgress?

    func read() throws -> Manifest {
        var entries: [ManifestEntry] = []
        // Files and hard links by normalized path, for the hard links that name them.
        var groups = LinkGroups()
        // The groups that have a hard link: their members, and the member
        // whose contents and metadata they show (indexes in `entries`). A
        // file no link names, most of them, needs neither.
        var linked: [Int: (members: [Int], shown: Int)] = [:]
        // Each group's file (its index in `entries`).
        var files: [Int] = []
        try ArchiveEntries.forEach(in: handle, limits: limits, checkingContents: true) { archived, contents in
            var entry = ManifestEntry(archived)
            let path = ManifestPath.normalized(archived.pathBytes)
            switch archived.kind {
            case .hardLink:
                let target = archived.hardLinkTarget ?? []
                guard let group = ManifestPath.normalized(target).flatMap(groups.group(at:)) else {
                    throw ArchiveError(.corrupt, archive: handle.name, entry: archived.displayPath,
                                       message: "the hard link names \"\(PathDisplay.text(target))\", which is not an earlier file of the archive")
                }
                groups.add(path, to: group)
                linked[group, default: ([files[group]], files[group])].members.append(entries.count)
                if archived.carriesContents {
                    try measure(&entry, archived, contents)
                    linked[group]?.shown = entries.count
                }
            case .regularFile:
                _ = groups.startGroup(at: path)
                files.append(entries.count)
                try measure(&entry, archived, contents)
            default:
                // A path stored again as another kind is no longer a file a link may name.
                if let path { groups.remove(path) }
            }
            entries.append(entry)
            progress?.count(entries: 1)
        }
        for (members, shown) in linked.values {
            let file = entries[shown]
            for index in members {
                entries[index].size = file.size
                entries[index].contentDigest = file.contentDigest
                entries[index].permissions = file.permissions
                entries[index].modified = file.modified
                entries[index].owner = file.owner
            }
        }
        var builder = ManifestBuilder(source: Manifest.Source(kind: .archive, name: handle.name, format: handle.formatName), repeatedPaths: .lastWins)
        try builder.add(contentsOf: consume entries)
        return try builder.finish()
    }

    /// Gives `entry` the size and, when hashing, the digest of the contents
    /// `archived` carries.
    private func measure(_ entry: inout ManifestEntry, _ archived: ArchiveEntry, _ contents: ArchiveEntryContents) throws {
        entry.size = archived.size
        if hashingContents {
            (entry.contentDigest, entry.size) = try SHA256Hasher.digest(progress: progress, of: contents.forEachBlock)
        }
    }
}
