import FileWrapperKit
import Foundation
import Glibc

/// The bytes of one file inside a tree, whatever holds the tree: a bundle,
/// an archive (streamed, never extracted), a flat RTFD, or a flat file
/// (whose only member is `.`, as for a flat RTFD of one file). What `wrapinspect cat` prints.
public enum MemberContents {
    /// Calls `body` with each block of the contents of the file at
    /// `member`, a path below the root of whatever is at `url`. Throws,
    /// naming the input and the member, when there is no such member, when
    /// it is not a file, when a path component is a symbolic link (which
    /// is never followed), and for a manifest, which holds no contents.
    ///
    /// - Parameters:
    ///   - member: The file's path below the root.
    ///   - url: The bundle, archive or flat file.
    ///   - options: The formats and limits of reading.
    ///   - body: Takes each block in order.
    /// - Throws: `ManifestError` naming the input and the member, for the
    ///   cases above; ``ArchiveError`` when an archive cannot be read or passes
    ///   a limit; `FileWrapperError` when a system call fails in a bundle;
    ///   whatever `body` throws.
    public static func forEachBlock(
        ofMember member: String, in url: URL, options: ManifestReadOptions = ManifestReadOptions(),
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let path = ManifestPath.normalized(Array(member.utf8)) else {
            throw ManifestError(file: url.relativePath, entry: member, message: "the member's path leaves the tree")
        }
        try forEachBlock(ofMembers: [path], in: url, options: options) { _, block in try body(block) }
    }

    /// Calls `body` with each block of each file of `members` (normalized
    /// paths below the root, as `ManifestEntry.path` holds them) and the
    /// member's index in `members`: a bundle's files one after the other, a
    /// zip's by its central directory, each member alone, as `unzip -p`
    /// reads them (`readZipMembersByDirectory(_:in:options:_:)`), another
    /// archive's in two passes whatever their number. Throws as
    /// ``forEachBlock(ofMember:in:options:_:)`` does, for the first member
    /// that is missing or not a file.
    ///
    /// - Parameters:
    ///   - members: The files' paths, normalized.
    ///   - url: The bundle, archive or flat file.
    ///   - options: The formats and limits of reading.
    ///   - body: Takes the member's index in `members` and each block in order.
    /// - Throws: As ``forEachBlock(ofMember:in:options:_:)``.
    public static func forEachBlock(
        ofMembers members: [[UInt8]], in url: URL, options: ManifestReadOptions = ManifestReadOptions(),
        _ body: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let name = url.relativePath
        if try readZipMembersByDirectory(members, in: url, options: options, body) { return }
        switch try Manifest.detect(url, options: options) {
        case .manifest:
            throw ManifestError(file: name, entry: members.first.map(PathDisplay.text), message: "a manifest lists contents by digest and holds none")
        case .file:
            for (index, path) in members.enumerated() {
                guard path.isEmpty else {
                    throw ManifestError(file: name, entry: PathDisplay.text(path), message: "the input is a single file, whose only member is \".\"")
                }
                try readBundleMember([], of: url.path, name: name, member: ".") { try body(index, $0) }
            }
        case .bundle:
            for (index, path) in members.enumerated() {
                try readBundleMember(path, of: url.path, name: name, member: PathDisplay.text(path)) { try body(index, $0) }
            }
        case .archive(let handle):
            try readArchiveMembers(members, named: name, from: handle, options: options, body) {
                try ArchiveReadHandle.reading(url, formats: options.archiveFormats, limits: options.limits)
            }
        case .flatRTFD(let blob):
            try readArchiveMembers(members, named: name, from: FlatRTFDEntryStream(blob), options: options, body) { FlatRTFDEntryStream(blob) }
        }
    }

    /// ``forEachBlock(ofMembers:in:options:_:)`` for the archive `data`
    /// (a member of another archive, say); `name` stands for it in errors.
    ///
    /// - Parameters:
    ///   - members: The files' paths, normalized.
    ///   - data: The archive's bytes.
    ///   - name: The archive's name in errors.
    ///   - options: The formats and limits of reading.
    ///   - body: Takes the member's index in `members` and each block in order.
    /// - Throws: `ManifestError` naming the archive and the member when a
    ///   member is missing or not a file; ``ArchiveError`` when the archive
    ///   cannot be read or passes a limit; whatever `body` throws.
    public static func forEachBlock(
        ofMembers members: [[UInt8]], inArchiveData data: Data, name: String, options: ManifestReadOptions = ManifestReadOptions(),
        _ body: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let open = {
            let handle = try ArchiveReadHandle(name: name, formats: options.archiveFormats, limits: options.limits)
            try handle.open(data: data)
            return handle
        }
        try readArchiveMembers(members, named: name, from: open(), options: options, body, reopening: open)
    }

    /// Opens each component below `root` without following symbolic links,
    /// and the file itself as a tree walk opens a listed file
    /// (``DirectoryListing/openListedFile(_:in:path:)``: `O_NONBLOCK`, its
    /// kind then checked on the descriptor), so that a file swapped for a
    /// FIFO after it was looked at is refused, not waited on.
    private static func readBundleMember(
        _ path: [UInt8], of root: String, name: String, member: String, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let components = path.split(separator: UInt8(ascii: "/")).map(Array.init)
        let display = { components.isEmpty ? name : name + "/" + member }
        var parent = AT_FDCWD
        defer { if parent != AT_FDCWD { Syscall.close(parent) } }
        var file = Array(root.utf8)
        if let last = components.last {
            parent = try Syscall.open(root, in: AT_FDCWD, flags: O_RDONLY | O_NOFOLLOW | O_DIRECTORY, path: { name })
            for component in components.dropLast() {
                let info = try Syscall.status(ofBytes: component, in: parent, path: display)
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw try refusal(of: component, in: parent, kind: info.st_mode & S_IFMT, isLast: false, name: name, member: member)
                }
                let next = try Syscall.open(bytes: component, in: parent, flags: O_RDONLY | O_NOFOLLOW | O_DIRECTORY, path: display)
                Syscall.close(parent)
                parent = next
            }
            file = last
        }
        let directory = parent
        guard let (fd, info) = try Syscall.withCName(file, { cName throws(FileWrapperError) in
            try DirectoryListing.openListedFile(cName, in: directory, path: display)
        }) else {
            // A symbolic link or a socket, which cannot be opened so.
            let kind = try Syscall.status(ofBytes: file, in: parent, path: display).st_mode & S_IFMT
            throw try refusal(of: file, in: parent, kind: kind, isLast: true, name: name, member: member)
        }
        defer { Syscall.close(fd) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw try refusal(of: file, in: parent, kind: info.st_mode & S_IFMT, isLast: true, name: name, member: member)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try Syscall.read(fd, into: buffer, path: display)
            guard count > 0 else { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Why `component` of `member`, of the kind `kind` (`S_IFMT` bits),
    /// cannot be read through: the member itself (`isLast`) must be a
    /// regular file, a component above it a directory.
    private static func refusal(
        of component: [UInt8], in parent: CInt, kind: mode_t, isLast: Bool, name: String, member: String
    ) throws -> ManifestError {
        switch kind {
        case S_IFLNK:
            let target = try Syscall.symbolicLinkTarget(ofBytes: component, in: parent, path: { name + "/" + member })
            return ManifestError(file: name, entry: member, message: "\"\(PathDisplay.text(component))\" is a symbolic link (to \"\(PathDisplay.text(target))\"), which is not followed")
        case S_IFDIR:
            return ManifestError(file: name, entry: member, message: "the member is a directory")
        case S_IFIFO where isLast:
            return ManifestError(file: name, entry: member, message: "the member is a FIFO, not a regular file")
        default:
            return ManifestError(file: name, entry: member, message: isLast ? "the member is not a regular file" : "\"\(PathDisplay.text(component))\" is not a directory")
        }
    }

    /// The members' bytes from the archive `handle` reads: for each, the
    /// contents of its link group, which the group's last member that
    /// carries any holds (``LinkGroups``), of the last entry at its path
    /// when the archive stores it more than once (as the manifest shows it).
    /// A first pass over the headers finds those entries, which a later
    /// link may be; a second pass, from the start, reads them.
    /// `reopening` gives a handle that reads the archive again from the start.
    static func readArchiveMembers(
        _ members: [[UInt8]], named name: String, from handle: any ArchiveEntryStream, options: ManifestReadOptions,
        _ body: (Int, UnsafeRawBufferPointer) throws -> Void, reopening: () throws -> any ArchiveEntryStream
    ) throws {
        let wanted = Dictionary(members.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var groups = LinkGroups()
        // Each group's entry that carries its contents: its number in the archive and its path.
        var carriers: [(number: Int, path: [UInt8])] = []
        var found: [(entry: ArchiveEntry, group: Int?)?] = Array(repeating: nil, count: members.count)
        var number = 0
        try ArchiveEntries.forEach(in: handle, limits: options.limits, checkingContents: false) { entry, _ in
            number += 1
            let normalized = ManifestPath.normalized(entry.pathBytes)
            var group: Int?
            switch entry.kind {
            case .regularFile:
                group = groups.startGroup(at: normalized)
                carriers.append((number, entry.pathBytes))
            case .hardLink:
                group = entry.hardLinkTarget.flatMap(ManifestPath.normalized).flatMap(groups.group(at:))
                if let group {
                    groups.add(normalized, to: group)
                    if entry.carriesContents { carriers[group] = (number, entry.pathBytes) }
                }
            default:
                if let normalized { groups.remove(normalized) }
            }
            // The last entry at the path, as extraction and the manifest leave it.
            if let normalized, let index = wanted[normalized] { found[index] = (entry, group) }
        }
        // The members each carrier's bytes go to, by the carrier's number.
        var readers: [Int: [Int]] = [:]
        for (index, member) in members.enumerated() {
            let group = try fileGroup(of: found[wanted[member]!], member: member, archive: name)
            readers[carriers[group].number, default: []].append(index)
        }
        guard !readers.isEmpty else { return }
        let paths = Dictionary(carriers.map { ($0.number, $0.path) }, uniquingKeysWith: { first, _ in first })
        let changed = ManifestError(file: name, message: "the archive changed while it was read")
        var left = readers.count
        number = 0
        do {
            let pass = try reopening()
            try ArchiveEntries.forEach(in: pass, limits: options.limits, checkingContents: false) { entry, contents in
                number += 1
                guard let indices = readers[number] else { return }
                guard entry.pathBytes == paths[number] else {
                    throw ManifestError(file: name, entry: PathDisplay.text(entry.pathBytes), message: changed.message)
                }
                try contents.forEachBlock { block in
                    for index in indices { try body(index, block) }
                }
                left -= 1
                if left == 0 { throw Read() }
            }
        } catch is Read {
            return
        }
        throw changed
    }
}

extension MemberContents {
    /// The link group of the file a member's last entry (`found`, with its
    /// group) is, or an error naming it: missing, a directory, a symbolic
    /// link (never followed), another kind, or a hard link to nothing.
    static func fileGroup(of found: (entry: ArchiveEntry, group: Int?)?, member: [UInt8], archive name: String) throws -> Int {
        let display = PathDisplay.text(member)
        guard let (entry, group) = found else {
            throw ManifestError(file: name, entry: display, message: "the archive has no such member")
        }
        switch entry.kind {
        case .regularFile, .hardLink:
            break
        case .directory:
            throw ManifestError(file: name, entry: display, message: "the member is a directory")
        case .symbolicLink:
            throw ManifestError(file: name, entry: display,
                                message: "the member is a symbolic link (to \"\(PathDisplay.text(entry.symbolicLinkTarget ?? []))\"), which is not followed")
        default:
            throw ManifestError(file: name, entry: display, message: "the member is not a regular file")
        }
        guard let group else {
            throw ManifestError(file: name, entry: display, message: "the hard link names an entry that is not an earlier file")
        }
        return group
    }
}

/// Ends the second pass of ``MemberContents`` once the members are read.
private struct Read: Error {}
