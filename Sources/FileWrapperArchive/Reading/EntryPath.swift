/// An archive entry's path, checked and split into the names it makes
/// inside the tree: `./` and empty components are dropped; an absolute path,
/// a `..` component, or a path or name over the limits is refused.
struct EntryPath {
    /// The names from the top of the tree down; empty for the tree's root
    /// itself (`.` or `./`).
    let components: [String]

    /// Checks `path`; errors name `entry` (the entry whose path this is, or
    /// whose hard-link target it is) and call the path `role`.
    init(_ path: String, entry: String? = nil, role: String = "the path", archive: String, limits: ArchiveReadLimits) throws {
        let entry = entry ?? path
        guard path.utf8.count <= limits.maxPathLength else {
            throw ArchiveError(.limitExceeded, archive: archive, entry: entry,
                               message: "\(role) is longer than the limit of \(limits.maxPathLength) bytes", limit: .maxPathLength)
        }
        guard !path.hasPrefix("/") else {
            throw ArchiveError(.unsafePath, archive: archive, entry: entry, message: "\(role) is absolute")
        }
        let names = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }.map(String.init)
        guard !names.contains("..") else {
            throw ArchiveError(.unsafePath, archive: archive, entry: entry, message: "\(role) has a \"..\" component")
        }
        if let long = names.first(where: { $0.utf8.count > limits.maxNameLength }) {
            throw ArchiveError(.limitExceeded, archive: archive, entry: entry, message:
                "\(role) has a name of \(long.utf8.count) bytes, longer than the limit of \(limits.maxNameLength)", limit: .maxNameLength)
        }
        guard names.count <= limits.maxDepth else {
            throw ArchiveError(.limitExceeded, archive: archive, entry: entry,
                               message: "\(role) is deeper than the limit of \(limits.maxDepth) levels", limit: .maxDepth)
        }
        components = names
    }
}
