/// Bounds on what reading an archive may produce; each stops a known kind of
/// archive bomb, and an error names the one that was reached.
public struct ArchiveReadLimits: Sendable, Hashable {
    /// Entries in the archive.
    public var maxEntries: Int
    /// Bytes of file contents, counted as they are produced, never taken
    /// from a declared size.
    public var maxBytes: Int64
    /// Bytes in one entry's path.
    public var maxPathLength: Int
    /// Components in one entry's path.
    public var maxDepth: Int
    /// Bytes in a symbolic link's target.
    public var maxLinkLength: Int

    public init(
        maxEntries: Int = 100_000, maxBytes: Int64 = 1 << 30, maxPathLength: Int = 4096,
        maxDepth: Int = 1024, maxLinkLength: Int = 4096
    ) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.maxPathLength = maxPathLength
        self.maxDepth = maxDepth
        self.maxLinkLength = maxLinkLength
    }

    /// For building a FileWrapper in memory: at most 1 GiB of contents.
    public static let inMemory = ArchiveReadLimits()
}
