import FileWrapperKit
import Foundation
import Glibc

extension MemberContents {
    /// ``forEachBlock(ofMember:in:options:_:)`` for the archive that the
    /// open descriptor `fd` brings, read as ``forEachBlock(ofMembers:inArchiveFrom:name:options:_:)`` reads it.
    ///
    /// - Parameters:
    ///   - member: The file's path below the root.
    ///   - fd: An open descriptor, read from its current offset.
    ///   - name: The archive's name in errors.
    ///   - options: The formats and limits of reading.
    ///   - body: Takes each block in order.
    /// - Throws: `ManifestError` naming the archive and the member as
    ///   ``forEachBlock(ofMembers:inArchiveFrom:name:options:_:)``;
    ///   ``ArchiveError`` when the archive cannot be read; whatever `body`
    ///   throws.
    public static func forEachBlock(
        ofMember member: String, inArchiveFrom fd: CInt, name: String, options: ManifestReadOptions = ManifestReadOptions(),
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let path = ManifestPath.normalized(Array(member.utf8)) else {
            throw ManifestError(file: name, entry: member, message: "the member's path leaves the tree")
        }
        try forEachBlock(ofMembers: [path], inArchiveFrom: fd, name: name, options: options) { _, block in try body(block) }
    }

    /// ``forEachBlock(ofMembers:in:options:_:)`` for the archive that the
    /// open descriptor `fd` brings from its current offset (standard input,
    /// say). A file, or a zip or 7z stream (spooled whole, as they are read
    /// by seeking), is read in two passes, as from a path. Any other stream
    /// is read once: the bytes that each member's file holds are kept in an
    /// unnamed spool (`ArchiveSpool`) until the archive's end tells which
    /// entry at its path is the last, then handed to `body`. The one thing
    /// a stream cannot give is a hard link to an earlier entry whose bytes
    /// were not kept then (no member was that file yet): that is an error
    /// naming the member. The caller keeps and closes `fd`; `name` stands
    /// for the archive in errors.
    ///
    /// - Parameters:
    ///   - members: The files' paths, normalized.
    ///   - fd: An open descriptor, read from its current offset.
    ///   - name: The archive's name in errors.
    ///   - options: The formats and limits of reading.
    ///   - body: Takes the member's index in `members` and each block in order.
    /// - Throws: `ManifestError` naming the archive and the member when a
    ///   member is missing or not a file, or is a hard link whose bytes were
    ///   not kept; ``ArchiveError`` when the archive cannot be read or passes a
    ///   limit; whatever `body` throws.
    public static func forEachBlock(
        ofMembers members: [[UInt8]], inArchiveFrom fd: CInt, name: String, options: ManifestReadOptions = ManifestReadOptions(),
        _ body: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let source = ArchiveReadSource(fd: fd, name: name)
        if let blob = try FlatRTFDArchive(source, limits: options.limits) {
            return try readArchiveMembers(members, named: name, from: FlatRTFDEntryStream(blob), options: options, body) { FlatRTFDEntryStream(blob) }
        }
        let handle = try ArchiveReadHandle.reading(source, formats: options.archiveFormats, limits: options.limits)
        if handle.canReopen {
            return try readArchiveMembers(members, named: name, from: handle, options: options, body) { try handle.reopened() }
        }
        try readStreamMembers(members, named: name, from: handle, options: options, body)
    }

    /// The one pass over a stream: see ``forEachBlock(ofMembers:inArchiveFrom:name:options:_:)``.
    private static func readStreamMembers(
        _ members: [[UInt8]], named name: String, from handle: ArchiveReadHandle, options: ManifestReadOptions,
        _ body: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let wanted = Dictionary(members.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var groups = LinkGroups()
        // The groups a member has been in, whose carriers' bytes are kept.
        var wantedGroups = Set<Int>()
        // Each kept group's bytes: the spool of its last carrier so far.
        var kept: [Int: CInt] = [:]
        defer { for spool in kept.values { Syscall.close(spool) } }
        var found: [(entry: ArchiveEntry, group: Int?)?] = Array(repeating: nil, count: members.count)
        try ArchiveEntries.forEach(in: handle, limits: options.limits, checkingContents: false) { entry, contents in
            let normalized = ManifestPath.normalized(entry.pathBytes)
            let isWanted = normalized.flatMap { wanted[$0] } != nil
            var group: Int?
            var carries = false
            switch entry.kind {
            case .regularFile:
                group = groups.startGroup(at: normalized)
                carries = true
            case .hardLink:
                group = entry.hardLinkTarget.flatMap(ManifestPath.normalized).flatMap(groups.group(at:))
                if let group { groups.add(normalized, to: group) }
                carries = entry.carriesContents
            default:
                if let normalized { groups.remove(normalized) }
            }
            if let group, isWanted { wantedGroups.insert(group) }
            if let group, carries, wantedGroups.contains(group) {
                let spool = try ArchiveSpool.make(for: name)
                if let old = kept.updateValue(spool, forKey: group) { Syscall.close(old) }
                try contents.forEachBlock { block in
                    try ArchiveError.io(archive: name, entry: entry.displayPath) { try Syscall.writeAll(block, to: spool, path: { name }) }
                }
            }
            if let normalized, let index = wanted[normalized] { found[index] = (entry, group) }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        for (index, member) in members.enumerated() {
            let group = try fileGroup(of: found[wanted[member]!], member: member, archive: name)
            guard let spool = kept[group] else {
                throw ManifestError(file: name, entry: PathDisplay.text(member), message: "the member is a hard link to an earlier entry, "
                                    + "whose bytes a stream no longer holds when the link comes; read the archive from a file")
            }
            var offset: Int64 = 0
            while true {
                let count = try ArchiveError.io(archive: name) {
                    try Syscall.retrying(.pread, { name }) { pread(spool, buffer.baseAddress, buffer.count, off_t(offset)) }
                }
                if count == 0 { break }
                try body(index, UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                offset += Int64(count)
            }
        }
    }
}
