import FileWrapperKit

/// Bounds on what reading an archive may produce; each stops a known kind of
/// archive bomb, and an error names the one that was reached.
public struct ArchiveReadLimits: Sendable, Hashable {
    /// A limit, by the name of its property, for errors to name.
    public enum Limit: String, Sendable, Hashable, CaseIterable {
        case maxEntries, maxBytes, maxRatio, maxPathLength, maxNameLength, maxDepth, maxLinkLength, maxMemory
    }

    /// Entries in the archive.
    public var maxEntries: Int
    /// Bytes of file contents, counted as they are produced, never taken
    /// from a declared size.
    public var maxBytes: Int64
    /// Bytes of file contents produced per byte of the archive read, checked
    /// once more than ``ratioGraceBytes`` have been produced, so that a
    /// small, very compressible document is never refused. 100:1 is more
    /// than text, JSON or images reach with any compressor; a deflate bomb
    /// reaches 1,000:1, bzip2 and zstd far more.
    public var maxRatio: Double
    /// Bytes of contents produced before ``maxRatio`` applies.
    public var ratioGraceBytes: Int64
    /// Bytes in one entry's path.
    public var maxPathLength: Int
    /// Bytes in one name of a path (Linux's `NAME_MAX` is 255).
    public var maxNameLength: Int
    /// Components in one entry's path.
    public var maxDepth: Int
    /// Bytes in a symbolic link's target.
    public var maxLinkLength: Int
    /// Bytes of memory that reading may take for any one thing the archive
    /// declares, checked before anything is allocated for it
    /// (`DeclaredSizes`): the memory a decoder needs for its dictionary,
    /// window or model (an xz, lzma, lzip or zstd stream; an LZMA, xz, PPMd
    /// or zstd zip member; each coder of a 7z), a 7z header's size and what
    /// its counts make libarchive allocate, and a cpio newc name, which
    /// libarchive reads whole and which is copied about 8 times (so a name
    /// may have an eighth of this).
    public var maxMemory: Int64

    /// The path, name, depth and link defaults are a manifest file's
    /// (`ManifestReadLimits.reading`): one source for both readers.
    ///
    /// - Parameters:
    ///   - maxEntries: Entries in the archive.
    ///   - maxBytes: Bytes of file contents produced.
    ///   - maxRatio: Bytes produced per byte read, past `ratioGraceBytes`.
    ///   - ratioGraceBytes: Bytes produced before `maxRatio` applies.
    ///   - maxPathLength: Bytes in one entry's path.
    ///   - maxNameLength: Bytes in one name of a path.
    ///   - maxDepth: Components in one entry's path.
    ///   - maxLinkLength: Bytes in a symbolic link's target.
    ///   - maxMemory: Bytes of memory for any one thing the archive declares.
    public init(
        maxEntries: Int = 100_000, maxBytes: Int64 = 1 << 30, maxRatio: Double = 100, ratioGraceBytes: Int64 = 64 << 20,
        maxPathLength: Int = ManifestReadLimits.reading.maxPathLength, maxNameLength: Int = ManifestReadLimits.reading.maxNameLength,
        maxDepth: Int = ManifestReadLimits.reading.maxDepth, maxLinkLength: Int = ManifestReadLimits.reading.maxLinkLength,
        maxMemory: Int64 = 256 << 20
    ) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.maxRatio = maxRatio
        self.ratioGraceBytes = ratioGraceBytes
        self.maxPathLength = maxPathLength
        self.maxNameLength = maxNameLength
        self.maxDepth = maxDepth
        self.maxLinkLength = maxLinkLength
        self.maxMemory = maxMemory
    }

    /// For building a FileWrapper in memory: at most 1 GiB of contents.
    public static let inMemory = ArchiveReadLimits()

    /// For unpacking to disk: at most 4 GiB of contents.
    public static let unpacking = ArchiveReadLimits(maxBytes: 4 << 30)

    /// For reading an archive's manifest without unpacking it (`dump`,
    /// `digest`, `snapshot`, `diff`): as for unpacking, but 2,000,000
    /// entries, whose manifest takes about 600 MB; each entry costs the
    /// memory of its manifest entry, and nothing is made on disk.
    public static let reading = ArchiveReadLimits(maxEntries: ManifestReadLimits.reading.maxEntries, maxBytes: ManifestReadLimits.reading.maxBytes)

    /// The limits of a manifest file read where an archive would be read
    /// within these: the same entries, bytes (declared sizes, for a file
    /// that declares them), path, name, depth and link limits.
    public var manifestLimits: ManifestReadLimits {
        ManifestReadLimits(
            maxEntries: maxEntries, maxBytes: maxBytes, maxPathLength: maxPathLength, maxNameLength: maxNameLength, maxDepth: maxDepth,
            maxLinkLength: maxLinkLength)
    }
}

extension ArchiveReadLimits.Limit {
    /// The archive limit of the same name, which raises a manifest limit
    /// too (``ArchiveReadLimits/manifestLimits``).
    ///
    /// - Parameter limit: A manifest file's limit.
    public init(_ limit: ManifestReadLimits.Limit) {
        switch limit {
        case .maxEntries: self = .maxEntries
        case .maxBytes: self = .maxBytes
        case .maxPathLength: self = .maxPathLength
        case .maxNameLength: self = .maxNameLength
        case .maxDepth: self = .maxDepth
        case .maxLinkLength: self = .maxLinkLength
        }
    }
}

/// Counts the bytes of contents an archive produces, against the byte and
/// ratio limits.
struct ContentBudget {
    let limits: ArchiveReadLimits
    private(set) var bytes: Int64 = 0

    init(limits: ArchiveReadLimits) {
        self.limits = limits
    }

    /// Counts `count` more bytes of `entry`; `stream` tells how much of the
    /// archive has been read so far, unless `archiveBytesRead` says more
    /// (the end of an entry's stored bytes read beside libarchive).
    mutating func spend(_ count: Int, entry: String, from stream: some ArchiveEntryStream, archiveBytesRead: Int64? = nil) throws {
        bytes += Int64(count)
        if bytes > limits.maxBytes {
            throw ArchiveError(.limitExceeded, archive: stream.name, entry: entry,
                               message: "the contents exceed the limit of \(limits.maxBytes) bytes", limit: .maxBytes)
        }
        guard bytes > limits.ratioGraceBytes else { return }
        let archiveBytes = max(stream.archiveBytesRead, archiveBytesRead ?? 0, 1)
        if Double(bytes) > limits.maxRatio * Double(archiveBytes) {
            throw ArchiveError(.limitExceeded, archive: stream.name, entry: entry, message:
                "\(bytes) bytes of contents from \(archiveBytes) bytes of archive exceed the compression ratio limit of \(limits.maxRatio.formatted):1", limit: .maxRatio)
        }
    }
}

private extension Double {
    /// `100` rather than `100.0`.
    var formatted: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}
