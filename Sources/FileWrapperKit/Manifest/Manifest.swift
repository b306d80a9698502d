/// The sorted list of a tree's entries with their metadata and content
/// digests, and the digests of the whole tree: what `wrapinspect snapshot`
/// writes and `diff` compares. The same tree gives the same manifest
/// whether it is a bundle, a `FileWrapper` or an archive, but for the
/// metadata a form does not keep.
///
/// ``entries`` are in ``ManifestPath/precedes(_:_:)`` order and start with
/// the root (empty path): a directory for a bundle or an archive, a file or
/// symbolic link for a flat one.
public struct Manifest: Sendable {
    /// What a manifest was made from.
    public struct Source: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            /// A directory on disk.
            case bundle
            /// A file that is not an archive or a manifest (or a symbolic link).
            case file
            case archive
            /// A `FileWrapper` in memory.
            case fileWrapper = "filewrapper"
        }

        public var kind: Kind
        /// The path or name as the user gave it.
        public var name: String
        /// An archive's format as libarchive names it (`ZIP 2.0 (deflation)`).
        public var format: String?

        /// A source of the kind, name and format given.
        ///
        /// - Parameters:
        ///   - kind: What the manifest was made from.
        ///   - name: The path or name as the user gave it.
        ///   - format: An archive's format as libarchive names it; nil for others.
        public init(kind: Kind, name: String, format: String? = nil) {
            self.kind = kind
            self.name = name
            self.format = format
        }
    }

    /// The entries, sorted, root first.
    public let entries: [ManifestEntry]
    public let source: Source
    /// The granularity, in nanoseconds, of the modification times this
    /// source keeps, judged from the times themselves: the largest power of
    /// ten (1 ns to 1 s) that divides every time's nanoseconds (7z keeps
    /// 100 ns, zip and GNU tar 1 s), or 2 s for a zip whose times are all
    /// even (DOS times). Comparisons round times to the coarser of two manifests.
    public let timeResolution: Int64
    /// The entries that could not be read whole, in manifest order, each
    /// with its error: only in a partial listing
    /// (``init(listing:hashingContents:progress:)``), empty otherwise.
    package internal(set) var unreadable: [UnreadableEntry] = []
    /// The paths an archive stores more than once (an appended `tar -rf`),
    /// in manifest order: each has the entry stored last, as extraction by
    /// tar leaves it (``ManifestBuilder/RepeatedPaths/lastWins``). A
    /// directory stored again as a directory is not listed: it is one
    /// directory, as every tar extracts it. Empty for every other source.
    public let repeatedPaths: [[UInt8]]

    /// A manifest of `entries`, sorted and checked as ``ManifestBuilder`` does.
    init(sortedEntries entries: [ManifestEntry], source: Source, timeResolution: Int64, repeatedPaths: [[UInt8]] = []) {
        self.entries = entries
        self.source = source
        self.timeResolution = timeResolution
        self.repeatedPaths = repeatedPaths
    }

    /// The root entry.
    public var root: ManifestEntry { entries[0] }

    /// The root's tree digest; `nil` when the files were not hashed.
    public var treeDigest: SHA256Digest? { root.treeDigest }

    /// The root's metadata digest.
    public var metadataDigest: SHA256Digest { root.metadataDigest! }

    /// `fwk-tree-v1:` and the tree digest in hexadecimal, as `wrapinspect digest` prints it.
    public var treeDigestText: String? {
        treeDigest.map { TreeDigest.treePrefix + $0.hex }
    }

    /// `fwk-meta-v1:` and the metadata digest in hexadecimal.
    public var metadataDigestText: String {
        TreeDigest.metadataPrefix + metadataDigest.hex
    }

    /// Whether every file's contents were hashed.
    public var hasContentDigests: Bool {
        root.treeDigest != nil
    }

    /// The entry at `path`, if there is one: found by binary search in the
    /// sorted entries, so that a manifest needs no index beside them.
    ///
    /// - Parameter path: The entry's path, clean (``ManifestPath/normalized(_:)``).
    /// - Returns: The entry; nil when the manifest has none at `path`.
    public func entry(at path: [UInt8]) -> ManifestEntry? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if ManifestPath.precedes(entries[middle].path, path) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < entries.count && entries[low].path == path ? entries[low] : nil
    }

    /// The position just past the subtree that starts at `index`.
    ///
    /// - Parameter index: An index into ``entries``.
    /// - Returns: The index of the first entry after `index` that does not lie
    ///   below it, or `entries.count`.
    public func endOfSubtree(at index: Int) -> Int {
        let path = entries[index].path
        var end = index + 1
        while end < entries.count, ManifestPath.isWithin(entries[end].path, path) {
            end += 1
        }
        return end
    }
}
