import FileWrapperKit
import Foundation
import Glibc

/// Our own reader of uncompressed tar files, for unpacking: the ustar, pax
/// and GNU headers of regular files, directories, symlinks and hard links
/// with ASCII names, as GNU tar, bsdtar, Python's tarfile and
/// `wrapinspect pack` write them.
///
/// It does less per entry than libarchive, which converts every name to
/// wide characters and back and copies contents through a buffer of its
/// own: unpacking 20,000 small files is bound by the CPU time of all its
/// threads, and the reading thread's is part of it.
///
/// libarchive stays the reference. This reader takes only what it reads as
/// libarchive 3.6.2 does. At anything else (another entry type, a sparse
/// file, a global or unknown extended record, a name or link that is not
/// ASCII or is empty, a time before 1970, a damaged header, an archive that
/// ends early) it throws ``Unsupported``, and the unpack starts again with
/// libarchive, which reads or refuses the archive as it always has.
final class PlainTarReader: ArchiveEntryStream {
    /// Why the reader leaves the archive to libarchive.
    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    let name: String
    private let fd: CInt
    /// The file's size when it was opened; reads past it mean it shrank.
    private let fileSize: Int64
    /// A window on the file: `bufferCount` bytes from `bufferStart`.
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
    private var bufferStart: Int64 = 0
    private var bufferCount = 0
    /// Where the next byte to read lies.
    private var position: Int64 = 0
    /// The current entry's data: where it starts and how much of it is unread.
    private var dataStart: Int64 = 0
    private var dataLeft: Int64 = 0
    /// Where the next header starts, after the current entry's data and padding.
    private var nextHeaderStart: Int64 = 0
    private var entries = 0
    /// Whether libarchive takes the archive for pax at this point: once it
    /// reads an extended header, until it reads a GNU one. It then reads a
    /// hard link's contents.
    private var isPax = false

    /// The largest extended header or GNU long name read (libarchive's limit is 1 MiB).
    private static let maxSpecialSize = 1 << 16

    /// A reader of the file at `url`, or nil unless libarchive, reading
    /// `formats`, would read it as a tar without a filter: it is a regular
    /// file whose first block is a ustar or GNU header with a valid checksum
    /// and number fields (which libarchive checks to take it for a tar at
    /// all), and whose first bytes start no compression that
    /// ``ArchiveReadFormats`` recognises.
    static func opening(_ url: URL, formats: ArchiveReadFormats) -> PlainTarReader? {
        guard formats.contains(.tar) else { return nil }
        let fd = Syscall.invoke(.open) { Glibc.open(url.path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        var status = stat()
        guard Syscall.invoke(.fstat, { fstat(fd, &status) }) == 0, status.st_mode & S_IFMT == S_IFREG else {
            Syscall.close(fd)
            return nil
        }
        let reader = PlainTarReader(fd: fd, size: Int64(status.st_size), name: url.relativePath)
        guard let first = try? TarBlock(reader.window(at: 0, count: TarBlock.size)), first.isValid, first.isTarToLibarchive,
              formats.readsUnfiltered(Array(first.bytes.prefix(ArchiveReadFormats.headLength)))
        else { return nil }
        return reader
    }

    /// Reads the open regular file `fd` of `size` bytes, which it closes.
    private init(fd: CInt, size: Int64, name: String) {
        self.fd = fd
        fileSize = size
        self.name = name
    }

    deinit {
        Syscall.close(fd)
        buffer.deallocate()
    }

    var storedContents: (fd: CInt, offset: Int64)? {
        position == dataStart ? (fd, dataStart) : nil
    }

    var archiveBytesRead: Int64 { position }

    func nextHeader() throws -> ArchiveReadHandle.Header? {
        position = nextHeaderStart
        dataLeft = 0
        var extended: ExtendedRecords?
        var longName: [UInt8]?
        var longLink: [UInt8]?
        while true {
            // libarchive takes an archive that ends on a block boundary without its zero blocks.
            if position == fileSize, entries > 0, extended == nil, longName == nil, longLink == nil { return nil }
            let header = TarBlock(try window(at: position, count: TarBlock.size))
            position += Int64(TarBlock.size)
            if header.isZero {
                guard entries > 0, extended == nil, longName == nil, longLink == nil else { throw Unsupported(description: "a zero block") }
                return nil
            }
            guard header.isValid else { throw Unsupported(description: "a damaged header") }
            let type = header.type
            switch type {
            case UInt8(ascii: "x"):
                guard extended == nil, longName == nil, longLink == nil else { throw Unsupported(description: "headers combined") }
                isPax = true
                extended = try ExtendedRecords(try special(header))
            case UInt8(ascii: "L"), UInt8(ascii: "K"):
                guard extended == nil else { throw Unsupported(description: "headers combined") }
                let body = try special(header)
                let text = Array(body.prefix { $0 != 0 })
                if type == UInt8(ascii: "L") {
                    guard longName == nil else { throw Unsupported(description: "two long names") }
                    longName = text
                } else {
                    guard longLink == nil else { throw Unsupported(description: "two long links") }
                    longLink = text
                }
            default:
                if header.isGNU { isPax = false }
                let entry = try Entry(header, extended: extended, longName: longName, longLink: longLink, isPax: isPax)
                guard entry.size <= fileSize - position, case let end = position + Self.padded(entry.size), end <= fileSize else {
                    throw Unsupported(description: "the archive ends early")
                }
                entries += 1
                dataStart = position
                dataLeft = entry.size
                nextHeaderStart = end
                return entry.header
            }
        }
    }

    func readData(into target: UnsafeMutableRawBufferPointer, entry: String) throws -> Int {
        let count = Int(min(Int64(target.count), dataLeft))
        guard count > 0 else { return 0 }
        var copied = 0
        while copied < count {
            let piece = try window(at: position, count: min(count - copied, buffer.count))
            UnsafeMutableRawBufferPointer(rebasing: target[copied...]).copyMemory(from: piece)
            copied += piece.count
            position += Int64(piece.count)
        }
        dataLeft -= Int64(count)
        return count
    }

    func skipData(entry: String) throws {
        position += dataLeft
        dataLeft = 0
    }

    /// The body of a special header (extended records, a long name or link),
    /// read whole; after it, `position` is at the next header.
    private func special(_ header: TarBlock) throws -> [UInt8] {
        let size = try Self.number(header, TarBlock.contentSize)
        guard size <= Self.maxSpecialSize else { throw Unsupported(description: "a special header of \(size) bytes") }
        let body = Array(try window(at: position, count: Int(size)))
        position += Self.padded(size)
        return body
    }

    /// `count` bytes (at most the buffer's size) of the file from `offset`,
    /// read into the buffer unless they are there already; throws when the
    /// file ends before them.
    private func window(at offset: Int64, count: Int) throws -> UnsafeRawBufferPointer {
        guard offset + Int64(count) <= fileSize else { throw Unsupported(description: "the archive ends early") }
        if offset < bufferStart || offset + Int64(count) > bufferStart + Int64(bufferCount) {
            bufferStart = offset
            bufferCount = 0
            while bufferCount < count {
                let want = Int(min(Int64(buffer.count - bufferCount), fileSize - offset - Int64(bufferCount)))
                let got = Syscall.invoke(.pread) { pread(fd, buffer.baseAddress! + bufferCount, want, off_t(offset) + off_t(bufferCount)) }
                if got < 0, errno == EINTR { continue }
                // An error or a shorter file than before: libarchive reads it again and reports it.
                guard got > 0 else { throw Unsupported(description: "a read failed") }
                bufferCount += got
            }
        }
        let start = Int(offset - bufferStart)
        return UnsafeRawBufferPointer(rebasing: buffer[start..<(start + count)])
    }

    /// `size` bytes of data and the zeros that fill them to whole blocks.
    private static func padded(_ size: Int64) -> Int64 {
        size + TarBlock.padding(after: size)
    }

    /// A number field of `block`, or ``Unsupported`` when it is malformed.
    static func number(_ block: TarBlock, _ field: TarBlock.Field) throws -> Int64 {
        guard let number = block.number(field) else { throw Unsupported(description: "a malformed number") }
        return number
    }
}

extension PlainTarReader {
    /// The records of a pax extended header (`"LENGTH KEY=VALUE\n"`) that
    /// change what the next entry is; records that only add what an unpack
    /// does not restore (access times, owners' names, extended attributes,
    /// comments) are passed over.
    struct ExtendedRecords {
        var path: [UInt8]?
        var linkPath: [UInt8]?
        var size: Int64?
        var modified: (seconds: Int64, nanoseconds: Int32)?
        var user: Int64?
        var group: Int64?

        /// Keys passed over, and key prefixes.
        private static let ignored: Set<String> = [
            "atime", "ctime", "comment", "charset", "LIBARCHIVE.creationtime",
            "SCHILY.dev", "SCHILY.ino", "SCHILY.nlink", "SCHILY.fflags",
        ]
        private static let ignoredPrefixes = ["SCHILY.xattr.", "LIBARCHIVE.xattr."]

        init(_ body: [UInt8]) throws {
            guard !body.contains(0) else { throw Unsupported(description: "a NUL in extended records") }
            let (records, wellFormed) = PaxRecord.parse(body)
            guard wellFormed else { throw Unsupported(description: "a malformed extended record") }
            for (key, value) in records { try set(String(decoding: key, as: UTF8.self), value) }
        }

        private mutating func set(_ key: String, _ value: ArraySlice<UInt8>) throws {
            switch key {
            case "path":
                guard !value.isEmpty else { throw Unsupported(description: "an empty path record") }
                path = Array(value)
            case "linkpath":
                guard !value.isEmpty else { throw Unsupported(description: "an empty linkpath record") }
                linkPath = Array(value)
            case "size": size = try Self.decimal(value)
            case "uid": user = try Self.decimal(value)
            case "gid": group = try Self.decimal(value)
            case "mtime": modified = try Self.time(value)
            // libarchive refuses an owner's name it cannot convert.
            case "uname", "gname":
                guard value.allSatisfy({ $0 < 0x80 }) else { throw Unsupported(description: "a non-ASCII owner name") }
            default:
                guard Self.ignored.contains(key) || Self.ignoredPrefixes.contains(where: key.hasPrefix) else {
                    throw Unsupported(description: "the extended record \(key)")
                }
            }
        }

        private static func decimal(_ value: ArraySlice<UInt8>) throws -> Int64 {
            guard let number = Int64(decimal: value) else { throw Unsupported(description: "a malformed number record") }
            return number
        }

        /// `SECONDS` or `SECONDS.FRACTION`, not before 1970, read as
        /// ``PaxRecord/time(_:)`` reads it (nine digits of the fraction).
        private static func time(_ value: ArraySlice<UInt8>) throws -> (seconds: Int64, nanoseconds: Int32) {
            guard value.first != UInt8(ascii: "-"), let time = PaxRecord.time(value) else {
                throw Unsupported(description: "a malformed time record")
            }
            return time
        }
    }

    /// The entry a header describes, with what the extended records or GNU
    /// long names before it change, in an archive libarchive takes for pax
    /// or not.
    struct Entry {
        let header: ArchiveReadHandle.Header
        /// The bytes of data that follow the header.
        let size: Int64

        init(_ block: TarBlock, extended: ExtendedRecords?, longName: [UInt8]?, longLink: [UInt8]?, isPax: Bool) throws {
            // GNU tar's sparse and multi-volume fields: libarchive reads them.
            if block.hasGNUExtensions {
                throw Unsupported(description: "a GNU sparse header")
            }
            var path = block.text(TarBlock.name)
            if block.isPOSIX, case let prefix = block.text(TarBlock.prefix), !prefix.isEmpty {
                path = prefix + (prefix.last == UInt8(ascii: "/") ? [] : [UInt8(ascii: "/")]) + path
            }
            if let longName { path = longName[...] }
            if let extendedPath = extended?.path { path = extendedPath[...] }
            let headerLink = block.text(TarBlock.linkName)
            var link = headerLink
            if let longLink { link = longLink[...] }
            if let extendedLink = extended?.linkPath { link = extendedLink[...] }

            let mode = try PlainTarReader.number(block, TarBlock.mode)
            let size = try PlainTarReader.number(block, TarBlock.contentSize)
            if let extendedSize = extended?.size, extendedSize != size {
                throw Unsupported(description: "an extended size unlike the header's")
            }
            // A hard link with a size carries contents in pax, and libarchive
            // makes it a regular file; elsewhere it guesses from the bytes that follow.
            let isLinkWithContents = block.type == UInt8(ascii: "1") && size > 0
            guard isPax || !isLinkWithContents else { throw Unsupported(description: "a hard link's size outside pax") }
            let type: mode_t
            switch block.type {
            case UInt8(ascii: "0"), 0: type = S_IFREG
            case UInt8(ascii: "5"): type = S_IFDIR
            case UInt8(ascii: "2"): type = S_IFLNK
            // libarchive gives a hard link the type bits of its mode field.
            case UInt8(ascii: "1"): type = isLinkWithContents ? S_IFREG : mode_t(truncatingIfNeeded: mode) & S_IFMT
            default: throw Unsupported(description: "entry type \(block.type)")
            }
            let isLink = block.type == UInt8(ascii: "1") || block.type == UInt8(ascii: "2")
            let hasContents = type == S_IFREG && block.type != UInt8(ascii: "1") || isLinkWithContents
            guard hasContents || size == 0 else {
                throw Unsupported(description: "data after a directory or link")
            }
            // A link's own header names its target too (cut short when a record holds it whole).
            guard isLink ? !link.isEmpty && !headerLink.isEmpty : link.isEmpty else {
                throw Unsupported(description: "an unexpected or missing link name")
            }
            // libarchive converts names to the locale's characters, and refuses one it cannot convert.
            let owners = block.text(TarBlock.userName) + block.text(TarBlock.groupName)
            guard !path.isEmpty, [path, link, owners].allSatisfy({ $0.allSatisfy { $0 < 0x80 } }) else {
                throw Unsupported(description: "an empty or non-ASCII name")
            }
            // libarchive makes a regular file whose name ends in "/" a directory.
            guard !(type == S_IFREG && path.last == UInt8(ascii: "/")) else { throw Unsupported(description: "a file named as a directory") }

            let pathBytes = Array(path)
            let linkBytes = Array(link)
            let modified = try extended?.modified ?? (PlainTarReader.number(block, TarBlock.modified), 0)
            let user = try extended?.user ?? PlainTarReader.number(block, TarBlock.user)
            let group = try extended?.group ?? PlainTarReader.number(block, TarBlock.group)
            header = ArchiveReadHandle.Header(
                path: String(decoding: pathBytes, as: UTF8.self),
                type: type,
                permissions: UInt16(mode & 0o7777),
                modified: (modified.seconds, modified.nanoseconds),
                owner: UInt32(exactly: user).flatMap { user in UInt32(exactly: group).map { (user, $0) } },
                symlinkTarget: block.type == UInt8(ascii: "2") ? linkBytes : nil,
                hardlinkTarget: block.type == UInt8(ascii: "1") ? String(decoding: linkBytes, as: UTF8.self) : nil,
                isEncrypted: false,
                pathBytes: pathBytes,
                hardlinkBytes: block.type == UInt8(ascii: "1") ? linkBytes : nil,
                size: size,
                modifiedIsSet: true)
            self.size = hasContents ? size : 0
        }
    }
}
