import FileWrapperKit
import Foundation
import Glibc

/// Apple's flat RTFD (a serialized file wrapper, docs/flat-rtfd.md) read as
/// a container, for what reads archives: each wrapper an ``ArchiveEntry``
/// in the order the stream stores it, its path the keys' bytes joined by
/// `/` (raw bytes, as a bundle's names are), its permissions and
/// whole-second time from its directory's `"."`, no owner. The top
/// directory has no attributes of its own; a top-level file or link is the
/// root entry itself, as a flat file is.
///
/// Recognised by its header alone (`"rtfd"` and a zero byte): the
/// headerless stream of the pasteboard, which Apple's reader also takes,
/// has no signature to tell it from other bytes and is read as a flat file.
/// The blob is read whole (Apple's format is read so too), within
/// ``ArchiveReadLimits/maxBytes``.
///
/// Refused, naming the blob and the key where there is one: what
/// ``FlatRTFDReader/stream(of:)`` refuses (a size or count past the end, a
/// version other than 0, an unknown tag); a key that is not a file name
/// (empty, `.`, `..`, with `/` or NUL: Apple's reader refuses the whole
/// blob for it), unless listing as stored; a directory info that is
/// malformed; a kind in it that contradicts the value; more entries than
/// ``ArchiveReadLimits/maxEntries``.
struct FlatRTFDArchive {
    /// One wrapper: its entry, and where a file's bytes or a link's target lie in ``data``.
    struct Member {
        var entry: ArchiveEntry
        var contents: Range<Int>?
    }

    /// The format's name, as a manifest's source gives it.
    static let formatName = "flat RTFD"

    let name: String
    let data: Data
    /// The wrappers in the order stored, the root first (but for a listing
    /// as stored, where the top directory, not stored, is left out and a
    /// top-level file or link has its key, `..`).
    let members: [Member]

    /// Whether `head`, an input's first bytes, begins with the header.
    static func isFlatRTFD(_ head: [UInt8]) -> Bool {
        head.withUnsafeBytes(FlatRTFD.hasHeader)
    }

    /// The flat RTFD that `source` reads, or nil when its first bytes are
    /// not the header; read from the start, whole.
    ///
    /// - Parameters:
    ///   - source: The input, not yet read past its head.
    ///   - limits: ``ArchiveReadLimits/maxBytes`` bounds the blob, ``ArchiveReadLimits/maxEntries`` its wrappers.
    ///   - listingAsStored: Whether keys that are not file names are kept, for a listing.
    /// - Throws: ``ArchiveError`` naming the blob when it cannot be read, is
    ///   longer than the limit, or is refused (see the type).
    init?(_ source: ArchiveReadSource, limits: ArchiveReadLimits, listingAsStored: Bool = false) throws {
        guard Self.isFlatRTFD(source.head) else { return nil }
        var data = Data()
        try source.forEachBlockFromStart { block in
            guard Int64(data.count) + Int64(block.count) <= limits.maxBytes else {
                throw ArchiveError(.limitExceeded, archive: source.name, message: "the flat RTFD is longer than \(limits.maxBytes) bytes",
                                   limit: .maxBytes)
            }
            data.append(contentsOf: block)
        }
        try self.init(data: data, name: source.name, limits: limits, listingAsStored: listingAsStored)
    }

    /// The flat RTFD at `url`, or nil when it does not begin with the header
    /// or is not a regular file. A pipe, a FIFO or `/dev/stdin` is not
    /// looked at (nor opened, which would end a FIFO writer's wait): the
    /// bytes of its head, once read, could not be read again by the reader
    /// that follows. Standard input is recognised through
    /// ``init(_:limits:listingAsStored:)``, which keeps the head it read.
    /// Nor is a symbolic link followed to a blob: only the name itself is
    /// looked at (`fstatat` without following), and a link is left to the
    /// archive reader.
    ///
    /// - Parameters:
    ///   - url: The file; named in errors as the caller wrote it.
    ///   - limits: As ``init(_:limits:listingAsStored:)``.
    ///   - listingAsStored: As ``init(_:limits:listingAsStored:)``.
    /// - Throws: ``ArchiveError``, as ``init(_:limits:listingAsStored:)``.
    init?(url: URL, limits: ArchiveReadLimits, listingAsStored: Bool = false) throws {
        let name = url.relativePath
        // A look at the name itself, which opens nothing.
        let status = try ArchiveError.io(archive: name) { try Syscall.status(of: url.path, in: AT_FDCWD, path: { name }) }
        guard status.st_mode & S_IFMT == S_IFREG else { return nil }
        let fd = try ArchiveError.io(archive: name) {
            try Syscall.open(url.path, in: AT_FDCWD, flags: O_RDONLY | O_NOCTTY | O_NONBLOCK, path: { name })
        }
        defer { Syscall.close(fd) }
        // Swapped for something else since the look: left to the reader that follows.
        guard try Self.isRegularFile(fd, name: name) else { return nil }
        try self.init(ArchiveReadSource(fd: fd, name: name), limits: limits, listingAsStored: listingAsStored)
    }

    /// Whether the open descriptor `fd` is a regular file (`fstat`).
    private static func isRegularFile(_ fd: CInt, name: String) throws -> Bool {
        try ArchiveError.io(archive: name) { try Syscall.status(of: fd, path: { name }) }.st_mode & S_IFMT == S_IFREG
    }

    /// The blob `data`, read by Apple's rules into ``members``.
    init(data: Data, name: String, limits: ArchiveReadLimits, listingAsStored: Bool = false) throws {
        self.name = name
        self.data = data
        members = try data.withUnsafeBytes { bytes in
            try Self.members(of: bytes, name: name, limits: limits, listingAsStored: listingAsStored)
        }
    }

    /// The bytes of `member`'s contents.
    func withContents<Result>(of member: Member, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try data.withUnsafeBytes { bytes in try body(UnsafeRawBufferPointer(rebasing: bytes[member.contents ?? 0..<0])) }
    }

    // MARK: - Reading by Apple's rules

    private static func members(
        of bytes: UnsafeRawBufferPointer, name: String, limits: ArchiveReadLimits, listingAsStored: Bool
    ) throws -> [Member] {
        if FlatRTFD.hasHeader(bytes), bytes.count < 8 || !bytes[4..<8].allSatisfy({ $0 == 0 }) {
            throw ArchiveError(.corrupt, archive: name, message: "the flat RTFD's version (bytes 4 to 7) is not 0, or is cut short")
        }
        guard let stream = FlatRTFDReader.stream(of: bytes) else {
            throw ArchiveError(.corrupt, archive: name, message: "the flat RTFD is damaged or cut short: a size or count runs past its end, "
                               + "a tag is unknown, or the top object is not a dictionary")
        }
        var top = stream.dictionaries[stream.top]
        guard let (_, leaf) = FlatRTFDReader.takePreferredName(from: &top, in: bytes) else {
            throw ArchiveError(.corrupt, archive: name, message: "the flat RTFD's preferred name is not data, or not a file name")
        }
        var members: [Member] = []
        let count = { (path: [UInt8]) throws in
            guard members.count < limits.maxEntries else {
                throw ArchiveError(.limitExceeded, archive: name, entry: PathDisplay.text(path),
                                   message: "the flat RTFD holds more than \(limits.maxEntries) wrappers", limit: .maxEntries)
            }
        }
        // Dictionaries being listed, each with its path, its info and the next of its entries: depth first, as
        // stored, without recursion, so that no nesting exhausts the thread's stack.
        var open: [(path: [UInt8], entries: [FlatRTFDEntry], info: [[UInt8]: FlatRTFDInfo], next: Int)] = []
        let opening = { (path: [UInt8], entries: [FlatRTFDEntry]) throws in
            guard let info = FlatRTFDReader.directoryInfo(of: entries, in: bytes) else {
                throw ArchiveError(.corrupt, archive: name, entry: path.isEmpty ? nil : PathDisplay.text(path),
                                   message: "the directory's info (its \".\" key) is malformed or not the only one")
            }
            open.append((path, entries, info, 0))
        }
        if let leaf {
            guard let info = FlatRTFDReader.directoryInfo(of: top, in: bytes) else {
                throw ArchiveError(.corrupt, archive: name, message: "the top-level wrapper's info (its \".\" key) is malformed")
            }
            // Listed as stored, under its key; else the root itself, as a flat file is.
            let path = listingAsStored ? FlatRTFD.leafKey : []
            members.append(try Self.member(path, top[leaf].value, info: info[FlatRTFD.leafKey], in: bytes, archive: name))
            if case .dictionary(let index) = top[leaf].value { try opening(path, stream.dictionaries[index]) }
        } else {
            // The top directory, which the format does not store (nor any attribute of it).
            if !listingAsStored { members.append(Member(entry: Self.entry([], kind: .directory), contents: nil)) }
            try opening([], top)
        }
        while var current = open.popLast() {
            guard current.next < current.entries.count else { continue }
            let entry = current.entries[current.next]
            current.next += 1
            open.append(current)
            let key = Array(bytes[entry.key])
            guard key != FlatRTFD.directoryInfoKey else { continue }
            let path = current.path.isEmpty ? key : current.path + [UInt8(ascii: "/")] + key
            if !listingAsStored, !FlatRTFDReader.isFileName(key) {
                throw ArchiveError(.unsafePath, archive: name, entry: PathDisplay.text(path),
                                   message: "the key \"\(PathDisplay.text(key))\" is not a file name (empty, \".\", \"..\", or with \"/\" "
                                   + "or NUL), which Apple's reader refuses")
            }
            try count(path)
            members.append(try Self.member(path, entry.value, info: current.info[key], in: bytes, archive: name))
            if case .dictionary(let index) = entry.value { try opening(path, stream.dictionaries[index]) }
        }
        return members
    }

    /// The member of one value: a dictionary is a directory; data is a
    /// regular file, or a symbolic link whose target it holds when its
    /// info says so. Its permissions and time are its info's, if it has one.
    private static func member(
        _ path: [UInt8], _ value: FlatRTFDValue, info: FlatRTFDInfo?, in bytes: UnsafeRawBufferPointer, archive: String
    ) throws -> Member {
        let kind = info.map { $0.kind & (FlatRTFD.directoryKind | FlatRTFD.linkKind) }
        var member: Member
        switch (value, kind) {
        case (.dictionary, nil), (.dictionary, FlatRTFD.directoryKind?):
            member = Member(entry: entry(path, kind: .directory), contents: nil)
        case (.data(let range), nil), (.data(let range), 0?):
            member = Member(entry: entry(path, kind: .regularFile), contents: range)
            member.entry.size = Int64(range.count)
        case (.data(let range), FlatRTFD.linkKind?):
            member = Member(entry: entry(path, kind: .symbolicLink), contents: nil)
            member.entry.symbolicLinkTarget = Array(bytes[range])
        default:
            let stored = if case .dictionary = value { "a dictionary" } else { "data" }
            throw ArchiveError(.corrupt, archive: archive, entry: path.isEmpty ? nil : PathDisplay.text(path),
                               message: "its info gives the kind \(kind ?? 0), which contradicts the \(stored) stored")
        }
        if let info {
            member.entry.permissions = UInt16(truncatingIfNeeded: info.mode) & 0o7777
            member.entry.modified = FileTimestamp(seconds: Int64(Int32(bitPattern: info.modified)))
        }
        return member
    }

    /// An entry of `kind` at `path`, without attributes.
    private static func entry(_ path: [UInt8], kind: ArchiveEntry.Kind) -> ArchiveEntry {
        ArchiveEntry(pathBytes: path, kind: kind, isEncrypted: false)
    }
}
