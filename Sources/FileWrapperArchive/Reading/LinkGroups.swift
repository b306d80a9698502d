/// The hard-link groups of an archive read in order: the names that are
/// one file. A regular file starts a group; a hard link joins the group of
/// the earlier file or hard link it names. Paths are keyed by their bytes,
/// as each reader normalizes them.
///
/// A group's contents are those of its last member that carries any: its
/// regular file, or a hard link with a size (``ArchiveEntry/carriesContents``).
/// SVR4 cpio (`newc`, `crc`, as GNU cpio and bsdtar write it) stores a
/// group's contents with its last link and the earlier members empty; a pax
/// hard link may carry contents too. bsdtar writes them into the file the
/// link names, which every member is; so do we, wherever an archive is read.
struct LinkGroups {
    private var groups: [[UInt8]: Int] = [:]
    /// Groups started so far, numbered from 0.
    private(set) var count = 0

    /// The group of the file or hard link an earlier entry put at `path`.
    func group(at path: [UInt8]) -> Int? {
        groups[path]
    }

    /// Starts a group with the regular file at `path` (nil for a path no
    /// link can name) and returns its number.
    mutating func startGroup(at path: [UInt8]?) -> Int {
        if let path { groups[path] = count }
        count += 1
        return count - 1
    }

    /// Puts the hard link at `path` in `group`.
    mutating func add(_ path: [UInt8]?, to group: Int) {
        if let path { groups[path] = group }
    }

    /// Forgets the file or hard link at `path`: the archive stores something
    /// else there after it, so a later hard link cannot name it.
    mutating func remove(_ path: [UInt8]) {
        if !groups.isEmpty { groups[path] = nil }
    }
}

extension ArchiveEntry {
    /// Whether this is a hard link that carries contents, which replace
    /// those of the file it names (`LinkGroups`).
    public var carriesContents: Bool {
        kind == .hardLink && (size ?? 0) > 0
    }
}

extension ArchiveReadHandle.Header {
    /// Whether this is a hard link that carries contents (see ``ArchiveEntry/carriesContents``).
    var carriesContents: Bool {
        hardlinkTarget != nil && (size ?? 0) > 0
    }
}
