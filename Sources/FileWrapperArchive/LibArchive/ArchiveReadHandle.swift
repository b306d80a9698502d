import CArchive
import FileWrapperKit
import Foundation
import Glibc

/// One libarchive read handle (`archive_read_new`) over a descriptor or
/// bytes in memory, reading the formats of an ``ArchiveReadFormats``; freed
/// with the object. Every call runs under ``ArchiveLocale``.
final class ArchiveReadHandle {
    private let archive: OpaquePointer
    /// The archive's name for errors.
    let name: String
    private let formats: ArchiveReadFormats
    /// The reader's limits: ``ArchiveReadLimits/maxMemory`` for
    /// ``DeclaredSizes``, all of them for a stream's spool (``ArchiveSpool/capacity(within:)``).
    private let limits: ArchiveReadLimits
    /// Where libarchive's bytes come from, alive as long as it reads them.
    private var source: ArchiveReadSource?
    /// Headers read so far.
    private var entries = 0
    /// The path of the last entry read, for an error in what follows it.
    private var lastPath: String?
    /// A zip's central directory checked against its local headers, at its
    /// first entry: nil before; `.some(nil)` when it cannot be checked.
    private var zipNames: ZipCentralNames??
    /// Whether the current entry is sparse: its bytes in the archive are
    /// not its contents as they are.
    private var entryIsSparse = false
    /// The size the current entry's header declares, for a regular file
    /// whose data follows it (not a hard link); nil when it declares none.
    private var declaredSize: Int64?
    /// The bytes of the current entry given out so far.
    private var delivered: Int64 = 0
    /// Whether libarchive has ended the current sparse entry's data before
    /// its size: the rest is hole, given as zeros without asking it again
    /// (past its end it would give some of the zeros itself).
    private var inTrailingHole = false
    /// The pax records libarchive misreads, as a tar stores them.
    private var paxRecords: PaxRawRecords?

    init(name: String, formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = ArchiveReadLimits()) throws {
        guard let archive = archive_read_new() else {
            throw ArchiveError(.libarchive, archive: name, message: "libarchive could not allocate a reader")
        }
        self.archive = archive
        self.name = name
        self.formats = formats
        self.limits = limits
    }

    /// The descriptor of a file this handle opened itself, closed with it.
    private var ownedDescriptor: CInt?
    /// The spool of a stream read by seeking (``ArchiveSpool``), closed with it.
    private var spool: CInt?

    deinit {
        archive_read_free(archive)
        if let ownedDescriptor { Syscall.close(ownedDescriptor) }
        if let spool { Syscall.close(spool) }
    }

    /// A handle reading the open descriptor `fd` (which the caller keeps
    /// and closes) from its current offset: a file by `pread`, a stream (a
    /// pipe, a socket, a FIFO) as it comes, without a copy, but for a zip or
    /// a 7z, which are read by seeking and so first copied to an unnamed
    /// spool (``ArchiveSpool``), as long as one within `limits` can be.
    static func reading(
        fileDescriptor fd: CInt, name: String, formats: ArchiveReadFormats, limits: ArchiveReadLimits = ArchiveReadLimits()
    ) throws -> ArchiveReadHandle {
        let handle = try ArchiveReadHandle(name: name, formats: formats, limits: limits)
        try handle.open(fd: fd)
        return handle
    }

    /// A handle reading `source`, a descriptor's input whose head others
    /// have looked at, as ``reading(fileDescriptor:name:formats:limits:)`` reads it.
    static func reading(_ source: ArchiveReadSource, formats: ArchiveReadFormats, limits: ArchiveReadLimits) throws -> ArchiveReadHandle {
        let handle = try ArchiveReadHandle(name: source.name, formats: formats, limits: limits)
        try handle.open(source)
        return handle
    }

    /// What a descriptor holds, read as ``reading(fileDescriptor:name:formats:limits:)``
    /// reads it: an archive, or not one.
    enum Recognized {
        case archive(ArchiveReadHandle)
        /// No format read takes it; `source` reads it again from the start.
        case notAnArchive(ArchiveReadSource)
    }

    /// The handle for `source`, or, when no format takes it, the source to
    /// read it from the start as a flat file (a stream's bytes that the
    /// formats looked at are kept for that).
    static func recognizing(
        _ source: ArchiveReadSource, name: String, formats: ArchiveReadFormats, limits: ArchiveReadLimits
    ) throws -> Recognized {
        let handle = try ArchiveReadHandle(name: name, formats: formats, limits: limits)
        source.recordsConsumed = true
        do {
            try handle.open(source)
        } catch let error as ArchiveError where error.code == .unrecognizedFormat && handle.spool == nil {
            return .notAnArchive(source)
        }
        source.recordsConsumed = false
        return .archive(handle)
    }

    /// A handle reading the archive file at `url`, named in errors as the
    /// caller wrote it (`url.relativePath`).
    static func reading(_ url: URL, formats: ArchiveReadFormats, limits: ArchiveReadLimits = ArchiveReadLimits()) throws -> ArchiveReadHandle {
        let name = url.relativePath
        let fd = Syscall.invoke(.open) { Glibc.open(url.path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else {
            throw ArchiveError(.io, archive: name, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        let handle: ArchiveReadHandle
        do {
            handle = try ArchiveReadHandle(name: name, formats: formats, limits: limits)
        } catch {
            Syscall.close(fd)
            throw error
        }
        handle.ownedDescriptor = fd
        try handle.open(fd: fd)
        return handle
    }

    /// The input as given, before a compression is decoded, for ``reopened()``.
    private var rawSource: ArchiveReadSource?
    /// The handle this one reads again, kept open while this one reads its descriptor.
    private var original: ArchiveReadHandle?

    /// Whether ``reopened()`` can read the input again: a file, bytes in
    /// memory or a stream's spool can, a stream cannot.
    var canReopen: Bool {
        rawSource.map { $0.stream == nil } ?? false
    }

    /// A new handle over the same input from its start, for a second pass
    /// (see ``canReopen``).
    func reopened() throws -> ArchiveReadHandle {
        guard let source = rawSource?.rewound() else { preconditionFailure("a stream cannot be read again") }
        let handle = try ArchiveReadHandle(name: name, formats: formats, limits: limits)
        handle.original = self
        try handle.open(source)
        return handle
    }

    /// Reads from the open descriptor `fd`, which the caller keeps and
    /// closes; a zip or 7z stream through a spool (``ArchiveSpool``).
    func open(fd: CInt) throws {
        try open(ArchiveReadSource(fd: fd, name: name))
    }

    /// Reads from a copy of `data`.
    func open(data: Data) throws {
        try open(ArchiveReadSource(data: data, name: name))
    }

    /// Sets up the formats, with what `source`'s compression decodes to and
    /// the declared sizes checked (``DeclaredSizes``), and opens; when no
    /// enabled format recognises the input, says which format left out does.
    private func open(_ source: ArchiveReadSource) throws {
        if let stream = source.stream, ArchiveSpool.isNeeded(for: source.head) {
            let spool = try ArchiveSpool.copy(head: source.head, rest: stream, name: name, limits: limits)
            self.spool = spool
            return try open(ArchiveReadSource(fd: spool, name: name))
        }
        rawSource = source
        try ArchiveLocale.withUTF8 {
            let source = try DeclaredSizes.prepare(source, formats: formats, memoryLimit: limits.maxMemory)
            self.source = source
            if formats.contains(.tar) {
                let records = PaxRawRecords()
                source.checks.append(records)
                paxRecords = records
            }
            try check(formats.configure(archive, seekable: !source.isSequential), entry: nil)
            let status = source.open(archive)
            guard status < ARCHIVE_WARN else { return try throwIfInputFailed() }
            try refuseLeftOutFormat()
            var error = failure(status, entry: nil)
            // Opening reads no entry: a format error here means no format bid.
            if error.code == .corrupt, archive_errno(archive) == EILSEQ {  // ARCHIVE_ERRNO_FILE_FORMAT
                error.code = .unrecognizedFormat
            }
            throw error
        }
    }

    /// Throws the failure of a read of the input (a declared size refused
    /// among them), which libarchive may have taken for the input's end:
    /// when a read fails while the formats bid, its `empty` format wins.
    private func throwIfInputFailed() throws {
        guard source?.error != nil else { return }
        throw failure(ARCHIVE_FATAL, entry: nil)
    }

    /// Throws when the input is in a format left out of ``formats``.
    private func refuseLeftOutFormat() throws {
        guard let source, source.error == nil, let format = formats.leftOut(in: source) else { return }
        throw ArchiveError(.unsupportedFormat, archive: name, message: "the archive is \(format.name), which this reader leaves out "
                           + "(ArchiveReadFormats.\(format.option) reads it; see ArchiveReadFormats for the risks)")
    }

    /// Throws when libarchive's zip reader found no member in a zip whose
    /// central directory lists some (``ZipDirectoryEnd``), rather than give
    /// an empty tree. libarchive 3.6.2 does so for a zip64 of two members
    /// after a self-extracting stub, its offsets not adjusted for it: it
    /// finds no zip64 end record where the locator says, and looks for the
    /// directory its size before the end record, which the zip64 records
    /// between them move past the first member's record, here onto the
    /// zip64 end record (with more members, onto a later record: "Damaged
    /// Zip archive").
    private func refuseUnreadZipDirectory() throws {
        guard isZip, let (source, _) = unfilteredInput, let (end, _) = ZipDirectoryEnd.locate(in: source), end.count > 0 else { return }
        throw ArchiveError(.corrupt, archive: name, message: "the zip's central directory lists \(end.count) members, but libarchive's zip reader "
            + "finds none (as in a self-extracting zip64 whose offsets were not adjusted for the bytes before the zip, which `zip -A` adjusts)")
    }

    /// An entry's header, as libarchive decoded it (``PlainTarReader``
    /// gives the same for the tars it reads).
    struct Header {
        var path: String?
        var type: mode_t
        var permissions: UInt16
        var modified: (seconds: Int64, nanoseconds: Int32)
        /// nil when an ID does not fit in 32 bits, as Linux's `uid_t` and
        /// `gid_t` and the digests' fields do not (a pax `uid=5000000000`).
        var owner: (user: UInt32, group: UInt32)?
        var symlinkTarget: [UInt8]?
        var hardlinkTarget: String?
        var isEncrypted: Bool
        /// The path's bytes as libarchive gives them (`nil` if it cannot convert them).
        var pathBytes: [UInt8]?
        var hardlinkBytes: [UInt8]?
        /// The path's bytes as text, for errors about an entry refused
        /// before its path is checked.
        var rawPath: String { String(decoding: pathBytes ?? [], as: UTF8.self) }
        /// `nil` when the archive does not say.
        var size: Int64?
        var modifiedIsSet: Bool
        /// Whether ``permissions`` are what the archive records, not
        /// libarchive's defaults for a zip member made on FAT or NTFS
        /// (``ZipRecordedMetadata``), which an unpack still applies.
        var recordsPermissions = true
        /// Whether ``modified`` is a zip member's MS-DOS date and time,
        /// which libarchive reads in the process's time zone (as unzip
        /// does, for an unpack); a manifest takes it as unknown.
        var modifiedIsLocalTime = false
        /// The `user.*` extended attributes of a pax entry
        /// (`SCHILY.xattr.` and `LIBARCHIVE.xattr.` records); nil when
        /// it has none.
        var extendedAttributes: [ExtendedAttributeName: [UInt8]]?

        /// Takes the names (``StoredName``) and time of `raw` over libarchive's.
        mutating func apply(_ raw: PaxRawRecords.Records) {
            if let stored = raw.path, let converted = pathBytes {
                let path = StoredName.choose(stored: stored, converted: converted)
                pathBytes = path
                self.path = String(validating: path, as: UTF8.self)
            }
            if let stored = raw.linkPath {
                if let converted = hardlinkBytes {
                    let link = StoredName.choose(stored: stored, converted: converted)
                    hardlinkBytes = link
                    hardlinkTarget = String(decoding: link, as: UTF8.self)
                } else if let converted = symlinkTarget {
                    symlinkTarget = StoredName.choose(stored: stored, converted: converted)
                }
            }
            if let time = raw.modified, raw.agrees(with: modified) { modified = time }
        }
    }

    /// The next entry's header, or `nil` at the end of the archive.
    func nextHeader() throws -> Header? {
        try ArchiveLocale.withUTF8 {
            var entry: OpaquePointer?
            // libarchive reads `errno` to tell a name it cannot convert from
            // a failed allocation (ENOMEM), without clearing it first.
            errno = 0
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF {
                try throwIfInputFailed()
                // Nothing found can mean a format left out: an ISO 9660
                // image begins with 32 KiB of zeros, which tar reads as its end.
                if entries == 0 {
                    try refuseLeftOutFormat()
                    try refuseUnreadZipDirectory()
                }
                return nil
            }
            // A warning or a retry (a damaged header libarchive skipped past)
            // means entries may be missing or wrong: refuse, never guess;
            // except a name libarchive could not convert that is read here as stored.
            let raw = status >= ARCHIVE_WARN && formatFamily == ARCHIVE_FORMAT_TAR ? dataOffset.flatMap { paxRecords?.take(dataStart: $0) } : nil
            guard status == ARCHIVE_OK || (status == ARCHIVE_WARN && raw.map(excusesWarning) == true) else { throw headerFailure(status, entry: entry) }
            guard let entry else { return nil }
            entries += 1
            entryIsSparse = archive_entry_sparse_count(entry) > 0
            var header = Header(
                path: archive_entry_pathname_utf8(entry).map(Self.string),
                type: mode_t(archive_entry_filetype(entry)),
                permissions: UInt16(archive_entry_perm(entry) & 0o7777),
                modified: (Int64(archive_entry_mtime(entry)), Int32(archive_entry_mtime_nsec(entry))),
                owner: UInt32(exactly: archive_entry_uid(entry)).flatMap { user in UInt32(exactly: archive_entry_gid(entry)).map { (user, $0) } },
                symlinkTarget: archive_entry_symlink(entry).map(Self.bytes),
                hardlinkTarget: archive_entry_hardlink_utf8(entry).map(Self.string),
                isEncrypted: archive_entry_is_encrypted(entry) != 0,
                pathBytes: archive_entry_pathname(entry).map(Self.bytes),
                hardlinkBytes: archive_entry_hardlink(entry).map(Self.bytes),
                size: archive_entry_size_is_set(entry) != 0 ? Int64(archive_entry_size(entry)) : nil,
                modifiedIsSet: archive_entry_mtime_is_set(entry) != 0,
                extendedAttributes: Self.userAttributes(of: entry))
            if let raw, raw.wellFormed { header.apply(raw) }
            lastPath = header.path ?? header.rawPath
            if formatFamily == ARCHIVE_FORMAT_7ZIP, let names = source?.sevenZipNames, entries <= names.count, let converted = header.pathBytes {
                let name = StoredName.choose(stored: names[entries - 1], converted: converted)
                header.pathBytes = name
                header.path = String(validating: name, as: UTF8.self)
                lastPath = header.path ?? header.rawPath
            }
            // A 7z entry whose Unix mode has permissions but no file-type
            // bits (Qt's installer packages) is a regular file to 7-Zip,
            // bsdtar and py7zr; libarchive, which makes a directory of a
            // 7z entry by its own bits, passes it on with no type.
            if formatFamily == ARCHIVE_FORMAT_7ZIP, header.type & S_IFMT == 0 { header.type |= S_IFREG }
            delivered = 0
            inTrailingHole = false
            declaredSize = header.type & S_IFMT == S_IFREG && header.hardlinkBytes == nil ? header.size : nil
            if isZip {
                let isSymbolicLink = header.type & S_IFMT == S_IFLNK
                let member = try zipMember(isSymbolicLink: isSymbolicLink)
                if let converted = header.pathBytes {
                    let name = ZipCentralNames.unflaggedName(member.map { StoredName.choose(stored: $0.name, converted: converted) } ?? converted)
                    header.pathBytes = name
                    header.path = String(validating: name, as: UTF8.self)
                    lastPath = header.path ?? header.rawPath
                }
                if isSymbolicLink, let member, let converted = header.symlinkTarget,
                   let source = unfilteredInput?.source, let stored = member.smallContents(in: source) {
                    header.symlinkTarget = StoredName.choose(stored: stored, converted: converted)
                }
                try apply(member, to: &header, isSymbolicLink: isSymbolicLink)
            }
            return header
        }
    }

    /// Whether libarchive's warning is only that it could not convert a
    /// name that `raw` holds as stored (one that is not UTF-8): libarchive
    /// reads the rest of the entry all the same.
    private func excusesWarning(_ raw: PaxRawRecords.Records) -> Bool {
        guard raw.wellFormed, let message = archive_error_string(archive).map({ String(cString: $0) }) else { return false }
        let name = message.hasPrefix("Pathname can't be converted") ? raw.path : message.hasPrefix("Linkname can't be converted") ? raw.linkPath : nil
        return name.map { String(validating: $0, as: UTF8.self) == nil } ?? false
    }

    /// Where the current entry's data begins in the bytes libarchive reads,
    /// when it reads them without a filter of its own (the bytes a
    /// compression decodes to are given to it decoded).
    private var dataOffset: Int64? {
        guard archive_filter_count(archive) == 1, archive_filter_code(archive, 0) == ARCHIVE_FILTER_NONE else { return nil }
        return archive_filter_bytes(archive, 0)
    }

    /// The current zip member's records (``ZipCentralNames``): its name as
    /// its local header stores it, not in the NFC that libarchive converts
    /// a UTF-8 name to, its permissions and its time; nil when they are not
    /// known (a zip read from a stream, with no central directory to
    /// check). A symlink, whose target libarchive reads with the header,
    /// is found by where its data ends, the others by where it begins.
    /// Refuses a zip whose local headers name a member otherwise than its
    /// central directory does, and a member (not a symlink) whose data
    /// libarchive found where no checked local header leads.
    private func zipMember(isSymbolicLink: Bool) throws -> ZipCentralNames.Member? {
        guard let (source, dataOffset) = unfilteredInput else { return nil }
        if zipNames == nil { zipNames = .some(try ZipCentralNames(source: source, archive: name)) }
        guard let names = zipNames ?? nil else { return nil }
        if isSymbolicLink { return names.member(dataEnd: dataOffset) }
        guard let member = names.member(dataStart: dataOffset) else {
            throw ArchiveError(.corrupt, archive: name, entry: lastPath,
                               message: "the member is not where a local header that the central directory lists leads")
        }
        return member
    }

    /// Gives `header` what the zip member's records say of its permissions
    /// and time (``ZipRecordedMetadata``); without its records, both are
    /// taken as unknown, but for a symlink's bits: only a Unix mode makes
    /// a member a symlink. Refuses a directory that holds contents (a
    /// member whose name ends in `/`, which libarchive makes a directory
    /// whatever its mode says, and whose bytes it would drop).
    private func apply(_ member: ZipCentralNames.Member?, to header: inout Header, isSymbolicLink: Bool) throws {
        if header.type & S_IFMT == S_IFDIR, let size = member?.size, size > 0 {
            throw ArchiveError(.corrupt, archive: name, entry: lastPath,
                               message: "the member's name ends in \"/\", which makes it a directory, but it holds \(size) bytes of contents")
        }
        header.recordsPermissions = isSymbolicLink || member?.permissions != nil
        if let modified = member?.modified {
            header.modified = (modified.seconds, modified.nanoseconds)
            header.modifiedIsSet = true
        } else {
            header.modifiedIsLocalTime = true
        }
    }

    /// The `user.*` extended attributes libarchive read for `entry` (a pax
    /// entry's `SCHILY.xattr.` and `LIBARCHIVE.xattr.` records), the later
    /// of two with one name winning; nil when there are none.
    private static func userAttributes(of entry: OpaquePointer) -> [ExtendedAttributeName: [UInt8]]? {
        guard archive_entry_xattr_reset(entry) > 0 else { return nil }
        var attributes: [ExtendedAttributeName: [UInt8]] = [:]
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while archive_entry_xattr_next(entry, &name, &value, &size) == ARCHIVE_OK {
            guard let name else { continue }
            let nameBytes = bytes(name)
            guard nameBytes.starts(with: Array("user.".utf8)) else { continue }
            attributes[ExtendedAttributeName(nameBytes)] = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
        }
        return attributes.isEmpty ? nil : attributes
    }

    /// Reads the current entry's next bytes into `buffer`; 0 at its end.
    /// The bytes are held to the size the header declares: a sparse
    /// entry's holes after its last data are given as zeros (libarchive
    /// 3.6.2 ends a GNU sparse file that is all hole at 0 bytes), and any
    /// other entry whose data ends short of its size, or runs past it, is
    /// refused.
    func readData(into buffer: UnsafeMutableRawBufferPointer, entry: String) throws -> Int {
        if inTrailingHole, let declaredSize { return zeros(into: buffer, upTo: declaredSize) }
        let count = try ArchiveLocale.withUTF8 {
            let count = archive_read_data(archive, buffer.baseAddress, buffer.count)
            guard count >= 0 else { throw failure(CInt(truncatingIfNeeded: count), entry: entry) }
            return count
        }
        guard let declaredSize else { return count }
        if count == 0, delivered < declaredSize {
            guard entryIsSparse else {
                throw ArchiveError(.corrupt, archive: name, entry: entry,
                                   message: "the entry's data ends after \(delivered) of the \(declaredSize) bytes its header declares")
            }
            inTrailingHole = true
            return zeros(into: buffer, upTo: declaredSize)
        }
        delivered += Int64(count)
        guard delivered <= declaredSize else {
            throw ArchiveError(.corrupt, archive: name, entry: entry,
                               message: "the entry holds more than the \(declaredSize) bytes its header declares")
        }
        return count
    }

    /// Fills `buffer` with as many zeros as the current entry still holds
    /// up to `size`, and returns how many.
    private func zeros(into buffer: UnsafeMutableRawBufferPointer, upTo size: Int64) -> Int {
        let count = Int(min(Int64(buffer.count), size - delivered))
        if count > 0 { buffer.baseAddress.map { _ = memset($0, 0, count) } }
        delivered += Int64(count)
        return count
    }

    /// The archive's bytes, to read beside libarchive, and where the current
    /// entry's data begins in them (counted from the archive's start), once
    /// its header is read: for an archive file or bytes in memory read
    /// without a filter; nil otherwise.
    var unfilteredInput: (source: ArchiveReadSource, dataOffset: Int64)? {
        guard let source, source.size != nil,
              archive_filter_count(archive) == 1, archive_filter_code(archive, 0) == ARCHIVE_FILTER_NONE
        else { return nil }
        // What the format's reader has consumed: up to this entry's data.
        return (source, archive_filter_bytes(archive, 0))
    }

    /// Where the current entry's contents lie, byte for byte, in the archive
    /// file, before any of them is read: the archive's descriptor and the
    /// offset of the first byte. Only a tar file read without a filter keeps
    /// them so, and not for a sparse entry; nil otherwise. The caller may
    /// copy them from there, then ``skipData(entry:)``.
    var storedContents: (fd: CInt, offset: Int64)? {
        guard let (source, dataOffset) = unfilteredInput, let file = source.file,
              !entryIsSparse, formatFamily == ARCHIVE_FORMAT_TAR
        else { return nil }
        return (file.fd, file.start + dataOffset)
    }

    /// Whether the archive is a zip (read from its central directory when
    /// the input can seek, as an unfiltered one can).
    var isZip: Bool {
        formatFamily == ARCHIVE_FORMAT_ZIP
    }

    /// Passes over the current entry's contents (seeking, where the archive
    /// can); throws if the archive ends before they do.
    func skipData(entry: String) throws {
        try ArchiveLocale.withUTF8 { try check(archive_read_data_skip(archive), entry: entry) }
    }

    /// Throws for a status below `ARCHIVE_WARN`, with libarchive's message.
    private func check(_ status: CInt, entry: String?) throws {
        guard status < ARCHIVE_WARN else { return }
        throw failure(status, entry: entry)
    }

    /// The error for a failed call, with libarchive's message.
    private func failure(_ status: CInt, entry: String?) -> ArchiveError {
        if let error = source?.error { return ArchiveError(error.code, archive: name, entry: entry, message: error.message, limit: error.limit) }
        let message = archive_error_string(archive).map { String(cString: $0) }
            ?? "the archive is damaged or ends early (libarchive stopped without a message, status \(status))"
        return ArchiveError(.corrupt, archive: name, entry: entry, message: message)
    }

    /// The error for a header that libarchive read with a warning (a zip
    /// member whose local header disagrees with the central directory:
    /// "Inconsistent CRC32 values") or could not read: it names the entry
    /// when libarchive got as far as its path, else the entry before it,
    /// whose data may be what ends early.
    private func headerFailure(_ status: CInt, entry: OpaquePointer?) -> ArchiveError {
        if let path = entry.flatMap(archive_entry_pathname).map(Self.string), !path.isEmpty {
            return failure(status, entry: path)
        }
        // A zip name flagged UTF-8 that is not: libarchive keeps none.
        if isZip, let stored = (try? zipMember(isSymbolicLink: false))??.name {
            return failure(status, entry: String(decoding: stored, as: UTF8.self))
        }
        guard let lastPath else { return failure(status, entry: nil) }
        var error = failure(status, entry: lastPath)
        error.message = "the archive cannot be read past this entry: " + error.message
        return error
    }

    /// libarchive's name for the format being read (`POSIX pax interchange
    /// format`, `ZIP 2.0 (deflation)`), once a header has been read.
    var formatName: String? {
        archive_format_name(archive).map { String(cString: $0) }
    }

    /// Whether the format records owners: tar and cpio do; libarchive
    /// reports 0 for zip and 7z entries whether or not they say.
    var recordsOwners: Bool {
        formatFamily == ARCHIVE_FORMAT_TAR || formatFamily == ARCHIVE_FORMAT_CPIO
    }

    /// The format being read without its variant (`ARCHIVE_FORMAT_TAR` for
    /// every tar), as `ARCHIVE_FORMAT_BASE_MASK` keeps it.
    private var formatFamily: CInt {
        archive_format(archive) & 0xff0000
    }

    /// Bytes of the archive itself read so far (before decompression),
    /// for the compression-ratio limit.
    var archiveBytesRead: Int64 {
        source?.decodedArchiveBytesRead ?? Int64(archive_filter_bytes(archive, -1))
    }

    private static func bytes(_ string: UnsafePointer<CChar>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: string, count: strlen(string)))
    }

    /// A C string as text, each invalid UTF-8 sequence replaced by U+FFFD.
    private static func string(_ string: UnsafePointer<CChar>) -> String {
        String(decoding: UnsafeRawBufferPointer(start: string, count: strlen(string)), as: UTF8.self)
    }
}

extension ArchiveReadHandle: ArchiveEntryStream {}
