/// Bounds on what reading a manifest file may make: the bounds an
/// archive's reader has, for a file that can declare as much as an
/// archive. FileWrapperArchive's `ArchiveReadLimits` takes its defaults
/// for these from ``reading`` and gives a manifest reader its own values
/// (`manifestLimits`), so that one set of flags raises both.
public struct ManifestReadLimits: Sendable, Hashable {
    /// A limit, by the name of its property, for errors to name.
    public enum Limit: String, Sendable, Hashable, CaseIterable {
        case maxEntries, maxBytes, maxPathLength, maxNameLength, maxDepth, maxLinkLength
    }

    /// Entries in the manifest, the folders its paths only imply among them.
    public var maxEntries: Int
    /// Bytes of file contents: the sum of the sizes the entries declare.
    public var maxBytes: Int64
    /// Bytes in one entry's path.
    public var maxPathLength: Int
    /// Bytes in one name of a path.
    public var maxNameLength: Int
    /// Components in one entry's path.
    public var maxDepth: Int
    /// Bytes in a symbolic or hard link's target.
    public var maxLinkLength: Int

    /// Limits with the values given; each left out is ``reading``'s.
    ///
    /// - Parameters:
    ///   - maxEntries: Entries in the manifest.
    ///   - maxBytes: Bytes of file contents, summed.
    ///   - maxPathLength: Bytes in one entry's path.
    ///   - maxNameLength: Bytes in one name of a path.
    ///   - maxDepth: Components in one entry's path.
    ///   - maxLinkLength: Bytes in a link's target.
    public init(
        maxEntries: Int = Self.reading.maxEntries, maxBytes: Int64 = Self.reading.maxBytes,
        maxPathLength: Int = Self.reading.maxPathLength, maxNameLength: Int = Self.reading.maxNameLength,
        maxDepth: Int = Self.reading.maxDepth, maxLinkLength: Int = Self.reading.maxLinkLength
    ) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.maxPathLength = maxPathLength
        self.maxNameLength = maxNameLength
        self.maxDepth = maxDepth
        self.maxLinkLength = maxLinkLength
    }

    private init(entries: Int, bytes: Int64, pathLength: Int, nameLength: Int, depth: Int, linkLength: Int) {
        maxEntries = entries
        maxBytes = bytes
        maxPathLength = pathLength
        maxNameLength = nameLength
        maxDepth = depth
        maxLinkLength = linkLength
    }

    /// The defaults, those of reading an archive's manifest: 2,000,000
    /// entries (about 600 MB of manifest), 4 GiB of contents, paths of
    /// 4096 bytes, names of 255 (Linux's `NAME_MAX`), 1024 levels, link
    /// targets of 4096 bytes.
    public static let reading = ManifestReadLimits(
        entries: 2_000_000, bytes: 4 << 30, pathLength: 4096, nameLength: 255, depth: 1024, linkLength: 4096)
}
