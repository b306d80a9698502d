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
    let components: [EntryName]

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
        let dot = UInt8(ascii: ".")
        var names: [EntryName] = []
        var climbs = false
        var longest = 0
        // One pass over the bytes: this runs for every entry of an unpack,
        // on its reading thread.
        var text = path
        text.withUTF8 { bytes in
            var start = 0
            for end in 0...bytes.count where end == bytes.count || bytes[end] == slash {
                let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
                start = end + 1
                switch name.count {
                case 0: continue
                case 1 where name[0] == dot: continue
                case 2 where name[0] == dot && name[1] == dot: climbs = true
                default:
                    longest = max(longest, name.count)
                    names.append(EntryName(name))
                }
            }
        }
        guard !climbs else {
            throw ArchiveError(.unsafePath, archive: archive, entry: entry, message: "\(role) has a \"..\" component")
        }
        guard longest <= limits.maxNameLength else {
            throw ArchiveError(.limitExceeded, archive: archive, entry: entry, message:
                "\(role) has a name of \(longest) bytes, longer than the limit of \(limits.maxNameLength)", limit: .maxNameLength)
        }
        guard names.count <= limits.maxDepth else {
            throw ArchiveError(.limitExceeded, archive: archive, entry: entry,
                               message: "\(role) is deeper than the limit of \(limits.maxDepth) levels", limit: .maxDepth)
        }
        components = names
    }
}
