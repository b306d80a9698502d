/// Collects entries in any order, from any source, and makes them a
/// ``Manifest``: paths normalized, directories that are only implied by
/// their contents added, everything sorted and checked, and the digests of
/// every directory computed. The one path every source goes through.
public struct ManifestBuilder {
    private let source: Manifest.Source
    private var entries: [ManifestEntry] = []
    /// For a zip: even-second times mean DOS times, kept to 2 seconds.
    private let evenSecondsMeanDOSTimes: Bool

    public init(source: Manifest.Source) {
        self.source = source
        evenSecondsMeanDOSTimes = source.format?.lowercased().hasPrefix("zip") ?? false
    }

    /// Adds `entry` after cleaning its path (`./a//b/` is `a/b`, `.` is the
    /// root). Throws for an absolute path or a `..` component.
    public mutating func add(_ entry: ManifestEntry) throws(ManifestError) {
        guard let path = ManifestPath.normalized(entry.path) else {
            throw ManifestError(
                file: source.name, entry: PathDisplay.text(entry.path),
                message: "the path leaves the tree (absolute, or with a \"..\" component), so it has no place in a manifest")
        }
        var entry = entry
        entry.path = path
        entries.append(entry)
    }

    /// The manifest. Throws when two entries have one path, or when an
    /// entry lies below something that is not a directory.
    public consuming func finish() throws(ManifestError) -> Manifest {
        var entries = self.entries
        entries.sort { ManifestPath.precedes($0.path, $1.path) }
        var sorted: [ManifestEntry] = []
        sorted.reserveCapacity(entries.count + 1)
        if entries.first?.path.isEmpty != true {
            sorted.append(ManifestEntry(path: [], kind: .directory))
        }
        // Directories seen so far by path; a missing parent is added just
        // before the first entry below it, which keeps the order.
        var directories: Set<[UInt8]> = []
        for entry in entries {
            if let last = sorted.last, last.path == entry.path {
                throw ManifestError(file: source.name, entry: entry.displayPath, message: "the tree has two entries at this path")
            }
            if let parent = ManifestPath.parent(of: entry.path) {
                try addMissingDirectories(upTo: parent, below: entry, into: &sorted, directories: &directories)
            }
            if entry.kind == .directory {
                directories.insert(entry.path)
            }
            sorted.append(entry)
        }
        computeDigests(&sorted)
        return Manifest(sortedEntries: sorted, source: source, timeResolution: timeResolution(of: sorted))
    }

    /// Makes sure `parent` and its own parents are directories in `sorted`,
    /// adding those that no entry stands for.
    private func addMissingDirectories(
        upTo parent: [UInt8], below entry: ManifestEntry, into sorted: inout [ManifestEntry], directories: inout Set<[UInt8]>
    ) throws(ManifestError) {
        var missing: [[UInt8]] = []
        var path: [UInt8]? = parent
        while let current = path, !directories.contains(current) {
            if current.isEmpty {
                guard sorted.first?.kind == .directory else {
                    throw ManifestError(file: source.name, entry: entry.displayPath, message: "the tree's root is not a directory, so nothing can lie below it")
                }
                directories.insert([])
                break
            }
            if let last = sorted.last, last.path == current {
                throw ManifestError(
                    file: source.name, entry: entry.displayPath,
                    message: "the entry lies below \"\(last.displayPath)\", which is a \(last.kind.rawValue), not a directory")
            }
            missing.append(current)
            path = ManifestPath.parent(of: current)
        }
        for directory in missing.reversed() {
            directories.insert(directory)
            sorted.append(ManifestEntry(path: directory, kind: .directory))
        }
    }

    /// Sets each entry's tree digest (when every file below it was hashed)
    /// and metadata digest, children before parents.
    private func computeDigests(_ entries: inout [ManifestEntry]) {
        // Children of each directory by the directory's position, gathered
        // from the last entry back, so each list is in reverse order.
        var treeChildren: [Int: [TreeDigest.Child]] = [:]
        var metadataChildren: [Int: [TreeDigest.Child]] = [:]
        var incomplete: Set<Int> = []
        var parentIndex: [[UInt8]: Int] = [:]
        for (index, entry) in entries.enumerated() where entry.kind == .directory {
            parentIndex[entry.path] = index
        }
        for index in entries.indices.reversed() {
            var entry = entries[index]
            let isIncomplete = incomplete.contains(index)
            let tree = isIncomplete ? nil : TreeDigest.node(entry, children: (treeChildren[index] ?? []).reversed())
            let metadata = TreeDigest.metadata(entry, children: (metadataChildren[index] ?? []).reversed())
            entry.treeDigest = entry.kind == .directory ? tree : nil
            entry.metadataDigest = metadata
            entries[index] = entry
            treeChildren[index] = nil
            metadataChildren[index] = nil
            guard let parentPath = ManifestPath.parent(of: entry.path), let parent = parentIndex[parentPath] else { continue }
            if let tree {
                treeChildren[parent, default: []].append(TreeDigest.Child(name: entry.name, digest: tree))
            } else {
                incomplete.insert(parent)
            }
            metadataChildren[parent, default: []].append(TreeDigest.Child(name: entry.name, digest: metadata))
        }
        // The root's tree digest is the tree's, whatever the root's kind.
        if !incomplete.contains(0), entries[0].kind != .directory {
            entries[0].treeDigest = TreeDigest.node(entries[0], children: [])
        }
    }

    /// See ``Manifest/timeResolution``.
    private func timeResolution(of entries: [ManifestEntry]) -> Int64 {
        let times = entries.compactMap(\.modified)
        var resolution: Int64 = 1_000_000_000
        while resolution > 1, !times.allSatisfy({ Int64($0.nanoseconds) % resolution == 0 }) {
            resolution /= 10
        }
        if resolution == 1_000_000_000, evenSecondsMeanDOSTimes, !times.isEmpty, times.allSatisfy({ $0.seconds % 2 == 0 }) {
            return 2_000_000_000
        }
        return resolution
    }
}
