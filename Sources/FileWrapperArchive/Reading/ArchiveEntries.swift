import FileWrapperKit
import Foundation

/// Streams an archive's entries in the order they are stored, without
/// building a tree and without refusing unsafe paths: each entry's header,
/// and its contents to read in blocks. Unless `checkingContents` is false,
/// every entry's contents are read to their end (by the visitor, or else
/// after it) so that damaged data, such as a zip CRC mismatch or a
/// truncated stream, is an error; without it, what the visitor does not
/// read is skipped, as `bsdtar -t` does.
///
/// Reading stops at the first damaged header or data, or at
/// ``ArchiveReadLimits/maxEntries``, ``ArchiveReadLimits/maxBytes`` or
/// ``ArchiveReadLimits/maxMemory`` (the other limits are about unpacking
/// and do not apply).
/// ``ArchiveReadFormats`` says which formats are read.
public enum ArchiveEntries {
    /// Calls `visit` with each entry of the archive file at `url` and its
    /// contents, which are valid only during that call.
    ///
    /// - Parameters:
    ///   - url: The archive file.
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    ///   - checkingContents: Whether contents `visit` does not read are read
    ///     to their end, to find damaged data.
    ///   - visit: Takes each entry and its contents.
    /// - Throws: ``ArchiveError`` naming the archive, and the entry where there
    ///   is one, when the archive cannot be opened or read, is damaged, is in a
    ///   format left out of `formats`, or passes a limit; whatever `visit`
    ///   throws.
    public static func forEach(
        in url: URL, formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = ArchiveReadLimits(),
        checkingContents: Bool = true, _ visit: (ArchiveEntry, ArchiveEntryContents) throws -> Void
    ) throws {
        if let blob = try FlatRTFDArchive(url: url, limits: limits, listingAsStored: true) {
            return try forEach(in: FlatRTFDEntryStream(blob), limits: limits, checkingContents: checkingContents, visit)
        }
        let handle = try ArchiveReadHandle.reading(url, formats: formats, limits: limits)
        try forEach(in: handle, limits: limits, checkingContents: checkingContents, visit)
    }

    /// Calls `visit` with each entry of the archive that the open
    /// descriptor `fd` brings from its current offset, and its contents: a
    /// stream (a pipe, a socket) as it comes, a zip or 7z one through an
    /// unnamed spool, since they are read by seeking. The caller keeps and
    /// closes `fd`; `name` stands for the archive in errors.
    ///
    /// - Parameters:
    ///   - fd: An open descriptor, read from its current offset.
    ///   - name: The archive's name in errors.
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    ///   - checkingContents: Whether contents `visit` does not read are read
    ///     to their end, to find damaged data.
    ///   - visit: Takes each entry and its contents.
    /// - Throws: ``ArchiveError``, as
    ///   ``forEach(in:formats:limits:checkingContents:_:)``;
    ///   whatever `visit` throws.
    public static func forEach(
        inArchiveFrom fd: CInt, name: String, formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = ArchiveReadLimits(),
        checkingContents: Bool = true, _ visit: (ArchiveEntry, ArchiveEntryContents) throws -> Void
    ) throws {
        let source = ArchiveReadSource(fd: fd, name: name)
        if let blob = try FlatRTFDArchive(source, limits: limits, listingAsStored: true) {
            return try forEach(in: FlatRTFDEntryStream(blob), limits: limits, checkingContents: checkingContents, visit)
        }
        let handle = try ArchiveReadHandle.reading(source, formats: formats, limits: limits)
        try forEach(in: handle, limits: limits, checkingContents: checkingContents, visit)
    }

    /// Calls `visit` with each entry of the archive `data` and its contents;
    /// `name` stands for the archive in errors.
    ///
    /// - Parameters:
    ///   - data: The archive's bytes.
    ///   - name: The archive's name in errors.
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    ///   - checkingContents: Whether contents `visit` does not read are read
    ///     to their end, to find damaged data.
    ///   - visit: Takes each entry and its contents.
    /// - Throws: ``ArchiveError`` naming the archive, and the entry where there
    ///   is one, when the archive is damaged, is in a format left out of
    ///   `formats`, or passes a limit; whatever `visit` throws.
    public static func forEach(
        in data: Data, name: String = "archive", formats: ArchiveReadFormats = .standard,
        limits: ArchiveReadLimits = ArchiveReadLimits(), checkingContents: Bool = true,
        _ visit: (ArchiveEntry, ArchiveEntryContents) throws -> Void
    ) throws {
        let handle = try ArchiveReadHandle(name: name, formats: formats, limits: limits)
        try handle.open(data: data)
        try forEach(in: handle, limits: limits, checkingContents: checkingContents, visit)
    }

    static func forEach(
        in handle: any ArchiveEntryStream, limits: ArchiveReadLimits, checkingContents: Bool,
        _ visit: (ArchiveEntry, ArchiveEntryContents) throws -> Void
    ) throws {
        let budget = ArchiveEntryContents.Budget(limits: limits)
        var count = 0
        while let header = try handle.nextHeader() {
            count += 1
            let entry = try makeEntry(header, number: count, in: handle)
            guard count <= limits.maxEntries else {
                throw ArchiveError(.limitExceeded, archive: handle.name, entry: entry.pathForErrors,
                                   message: "the archive has more than \(limits.maxEntries) entries", limit: .maxEntries)
            }
            let contents = ArchiveEntryContents(handle: handle, entry: entry, budget: budget)
            try visit(entry, contents)
            try contents.finish(reading: checkingContents)
        }
    }

    private static func makeEntry(_ header: ArchiveReadHandle.Header, number: Int, in handle: any ArchiveEntryStream) throws -> ArchiveEntry {
        guard let path = header.pathBytes else {
            throw ArchiveError(.corrupt, archive: handle.name, message: "libarchive cannot read the name of entry \(number)")
        }
        let kind: ArchiveEntry.Kind
        if header.hardlinkBytes != nil {
            kind = .hardLink
        } else {
            switch header.type & S_IFMT {
            case S_IFREG: kind = .regularFile
            case S_IFDIR: kind = .directory
            case S_IFLNK: kind = .symbolicLink
            case S_IFCHR: kind = .characterDevice
            case S_IFBLK: kind = .blockDevice
            case S_IFIFO: kind = .fifo
            case S_IFSOCK: kind = .socket
            default: kind = .unknown
            }
        }
        let (seconds, nanoseconds) = header.modified
        return ArchiveEntry(
            pathBytes: path, kind: kind, size: header.size, permissions: header.recordsPermissions ? header.permissions : nil,
            modified: header.modifiedIsSet && !header.modifiedIsLocalTime && (0..<1_000_000_000).contains(nanoseconds)
                ? FileTimestamp(seconds: seconds, nanoseconds: nanoseconds) : nil,
            owner: handle.recordsOwners ? header.owner.map { FileOwner(userID: $0.user, groupID: $0.group) } : nil,
            symbolicLinkTarget: kind == .symbolicLink ? header.symlinkTarget : nil,
            hardLinkTarget: header.hardlinkBytes, isEncrypted: header.isEncrypted, extendedAttributes: header.extendedAttributes)
    }
}
