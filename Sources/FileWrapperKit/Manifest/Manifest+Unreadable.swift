extension Manifest {
    /// Whether some entries could not be read: the manifest describes part
    /// of the tree.
    package var isPartial: Bool { !unreadable.isEmpty }

    /// This manifest with `unreadable` named, sorted in manifest order, and
    /// no tree digest for each of those entries and the folders that hold
    /// them: a digest of a tree read in part would pass for the tree's.
    func marking(unreadable: [UnreadableEntry]) -> Manifest {
        var entries = entries
        for index in entries.indices where entries[index].treeDigest != nil {
            if unreadable.contains(where: { ManifestPath.isWithin($0.path, entries[index].path) }) {
                entries[index].treeDigest = nil
            }
        }
        var manifest = Manifest(sortedEntries: entries, source: source, timeResolution: timeResolution)
        manifest.unreadable = unreadable.sorted { ManifestPath.precedes($0.path, $1.path) }
        return manifest
    }

    /// The error of the entry at `index`, when it could not be read.
    package func unreadableError(at index: Int) -> FileWrapperError? {
        guard isPartial else { return nil }
        let path = entries[index].path
        return unreadable.first { $0.path == path }?.error
    }
}
