/// An archive entry's path, checked and split into the names it makes
/// inside the tree: `./` and empty components are dropped; an absolute path,
/// a `..` component, or a path or name over the limits is refused.
///
/// Split and checked by bytes, as the kernel reads a path: split by
/// `Character`, `/` followed by a combining mark (`../\u{301}x`) is one
/// grapheme and would hide a separator.
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
        let slash = UInt8(ascii: "/")
        guard path.utf8.first != slash else {
            throw ArchiveError(.unsafePath, archive: archive, entry: entry, message: "\(role) is absolute")
        }
        let names = path.utf8.split(separator: slash, omittingEmptySubsequences: true)
            .filter { !$0.elementsEqual(".".utf8) }
            .map { String(decoding: $0, as: UTF8.self) }
        guard !names.contains(where: { $0.utf8.elementsEqual("..".utf8) }) else {
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
