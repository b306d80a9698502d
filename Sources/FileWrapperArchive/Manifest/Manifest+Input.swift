import FileWrapperKit
import Foundation
import Glibc

/// How `Manifest.init(reading:options:)` reads its input.
public struct ManifestReadOptions: Sendable {
    /// Whether to hash every file's contents (needed for digests and diff).
    public var hashingContents: Bool
    /// The archive formats read; others are refused by name. An mtree
    /// file is always read as a manifest, never by libarchive's mtree
    /// reader (which would open the files it names).
    public var formats: ArchiveReadFormats
    /// Limits on an archive's entries and contents (``ArchiveReadLimits/reading`` unless given).
    public var limits: ArchiveReadLimits
    /// Counts entries and bytes as they are read, for a progress display.
    public var progress: ManifestProgress?
    /// Whether a tree on disk with folders or files that cannot be read
    /// gives a partial listing that names them (``Manifest/unreadable``),
    /// as `dump` shows it, instead of failing; never for a digest or a
    /// snapshot, which must cover the whole tree.
    package var keepsUnreadable = false

    /// Options with the values given; each left out is the default.
    ///
    /// - Parameters:
    ///   - hashingContents: Whether to hash every file's contents.
    ///   - formats: The archive formats read.
    ///   - limits: What an archive, or a manifest file, may hold.
    ///   - progress: Counts entries and bytes read; nil for none.
    public init(
        hashingContents: Bool = true, formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = .reading,
        progress: ManifestProgress? = nil
    ) {
        self.hashingContents = hashingContents
        self.formats = formats
        self.limits = limits
        self.progress = progress
    }

    /// ``formats`` without libarchive's mtree reader, for reading what is
    /// known to be an archive (mtree is read as a manifest file instead).
    public var archiveFormats: ArchiveReadFormats { formats.subtracting(.mtree) }
}

extension Manifest {
    /// What a path holds, judged from the file system and the bytes, not the name.
    public enum InputKind: Sendable, Hashable {
        /// A directory.
        case bundle
        /// A manifest file that `wrapinspect snapshot` wrote.
        case manifest(ManifestFileFormat)
        /// An archive in a format libarchive reads, or Apple's flat RTFD
        /// (a serialized file wrapper, recognised by its header).
        case archive
        /// Anything else: a regular file (an empty one too) or a symbolic link.
        case file
    }

    /// The manifest of whatever is at `url`: a bundle (directory), a
    /// manifest file, an archive, or a flat file (or symbolic link, not
    /// followed), told apart by ``inputKind(of:options:)``. An archive is
    /// read on from the handle that recognised it.
    ///
    /// - Parameters:
    ///   - url: The input.
    ///   - options: How to read it.
    /// - Throws: `ManifestError` when `url` cannot be read, a manifest file
    ///   is malformed or passes a limit, or the entries cannot make a tree;
    ///   ``ArchiveError`` when an archive cannot be read or passes a limit;
    ///   `FileWrapperError` when a system call fails in a bundle.
    public init(reading url: URL, options: ManifestReadOptions = ManifestReadOptions()) throws {
        switch try Self.detect(url, options: options) {
        case .bundle, .file:
            self = options.keepsUnreadable
                ? try Manifest(listing: url, hashingContents: options.hashingContents, progress: options.progress)
                : try Manifest(contentsOf: url, hashingContents: options.hashingContents, progress: options.progress)
        case .manifest:
            let data = try Self.contents(of: url, within: options.limits)
            self = try Manifest(decoding: data, name: url.relativePath, limits: options.limits.manifestLimits)
        case .archive(let handle):
            self = try ArchiveManifestReader(
                handle: handle, limits: options.limits, hashingContents: options.hashingContents, progress: options.progress
            ).read()
        case .flatRTFD(let blob):
            self = try ArchiveManifestReader(
                handle: FlatRTFDEntryStream(blob), limits: options.limits, hashingContents: options.hashingContents, progress: options.progress
            ).read()
        }
    }

    /// The manifest of what the open descriptor `fd` brings from its
    /// current offset (standard input, say): a manifest file, an archive,
    /// or else a flat file (one whose mode, time and owner are what `fstat`
    /// says of the descriptor). A stream (a pipe, a socket) is read once,
    /// as it comes, never copied, but for a zip or a 7z, which go through
    /// an unnamed spool (`ArchiveSpool`): the formats are recognised from
    /// the bytes that the readers have looked at, which are kept for a flat
    /// file. The caller keeps and closes `fd`; `name` names it in errors.
    ///
    /// - Parameters:
    ///   - fd: An open descriptor, read from its current offset.
    ///   - name: The input's name in errors.
    ///   - options: How to read it.
    /// - Throws: ``ArchiveError`` when the descriptor cannot be read or an
    ///   archive is refused; `ManifestError` when a manifest file is
    ///   malformed, the input is longer than the limits allow, or the entries
    ///   cannot make a tree.
    public init(readingFrom fd: CInt, name: String, options: ManifestReadOptions = ManifestReadOptions()) throws {
        let source = ArchiveReadSource(fd: fd, name: name)
        if let error = source.error { throw error }
        if ManifestFileFormat.detect(source.head) != nil {
            let capacity = Self.textCapacity(within: options.limits)
            var data = Data()
            try source.forEachBlockFromStart { block in
                guard Int64(data.count) + Int64(block.count) <= capacity else { throw Self.tooLong(name, capacity: capacity) }
                data.append(contentsOf: block)
            }
            self = try Manifest(decoding: data, name: name, limits: options.limits.manifestLimits)
            return
        }
        if let blob = try FlatRTFDArchive(source, limits: options.limits) {
            self = try ArchiveManifestReader(
                handle: FlatRTFDEntryStream(blob), limits: options.limits, hashingContents: options.hashingContents, progress: options.progress
            ).read()
            return
        }
        let recognized: ArchiveReadHandle.Recognized = source.head.isEmpty
            ? .notAnArchive(source)
            : try ArchiveReadHandle.recognizing(source, name: name, formats: options.archiveFormats, limits: options.limits)
        switch recognized {
        case .archive(let handle):
            self = try ArchiveManifestReader(
                handle: handle, limits: options.limits, hashingContents: options.hashingContents, progress: options.progress
            ).read()
        case .notAnArchive(let source):
            let info: stat
            do { info = try Syscall.status(of: fd, path: { name }) } catch { throw Self.unreadable(name, error) }
            var entry = ManifestEntry(
                path: [], kind: .file, size: 0, permissions: UInt16(info.st_mode & 0o7777),
                modified: FileTimestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int32(info.st_mtim.tv_nsec)),
                owner: FileOwner(userID: info.st_uid, groupID: info.st_gid))
            // A flat stream is hashed as it comes, as sha256sum hashes it,
            // but no further than the contents limit.
            let maxBytes = options.limits.maxBytes
            let blocks = { (body: (UnsafeRawBufferPointer) throws -> Void) throws in
                var count: Int64 = 0
                try source.forEachBlockFromStart { block in
                    count += Int64(block.count)
                    guard count <= maxBytes else {
                        throw ManifestError(file: name, message: "the stream holds more than \(maxBytes) bytes", limit: .maxBytes)
                    }
                    try body(block)
                }
            }
            if options.hashingContents {
                (entry.contentDigest, entry.size) = try SHA256Hasher.digest(progress: options.progress, of: blocks)
            } else {
                try blocks { entry.size! += Int64($0.count) }
            }
            var builder = ManifestBuilder(source: Manifest.Source(kind: .file, name: name))
            try builder.add(entry)
            self = try builder.finish()
        }
    }

    /// What `url` holds: a directory is a bundle; a regular file is a
    /// manifest when it begins as ours do, an archive when it begins with
    /// a flat RTFD's header or one of the formats read recognises it, and
    /// else a flat file. An empty file is
    /// flat (libarchive would take it for an empty archive). Throws when
    /// the path cannot be read, and for an archive in a format left out
    /// of `options.formats`.
    ///
    /// - Parameters:
    ///   - url: The input.
    ///   - options: The formats an archive may be in.
    /// - Returns: What `url` holds.
    /// - Throws: `ManifestError` when the path cannot be read;
    ///   ``ArchiveError`` for an archive in a format left out of
    ///   `options.formats`.
    public static func inputKind(of url: URL, options: ManifestReadOptions = ManifestReadOptions()) throws -> InputKind {
        switch try detect(url, options: options) {
        case .bundle: .bundle
        case .manifest(let format): .manifest(format)
        case .archive, .flatRTFD: .archive
        case .file: .file
        }
    }

    /// An ``InputKind``, with the open handle for an archive.
    enum Detected {
        case bundle, file
        case manifest(ManifestFileFormat)
        case archive(ArchiveReadHandle)
        case flatRTFD(FlatRTFDArchive)
    }

    /// See ``inputKind(of:options:)``.
    static func detect(_ url: URL, options: ManifestReadOptions) throws -> Detected {
        let info = try status(of: url)
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            return .bundle
        case S_IFREG where info.st_size > 0:
            break
        default:
            return .file
        }
        let head = try head(of: url)
        if let format = ManifestFileFormat.detect(head) {
            return .manifest(format)
        }
        if FlatRTFDArchive.isFlatRTFD(head), let blob = try FlatRTFDArchive(url: url, limits: options.limits) {
            return .flatRTFD(blob)
        }
        do {
            return .archive(try ArchiveReadHandle.reading(url, formats: options.archiveFormats, limits: options.limits))
        } catch let error as ArchiveError where error.code == .unrecognizedFormat {
            return .file
        }
    }

    /// The first bytes of the file at `url`, enough to recognise a manifest.
    private static func head(of url: URL) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return Array(try handle.read(upToCount: 256) ?? Data())
    }

    /// The manifest file at `url`, refused unread when it is longer than
    /// any input within `limits` (``tooLong(_:capacity:)``).
    private static func contents(of url: URL, within limits: ArchiveReadLimits) throws -> Data {
        let info = try status(of: url)
        let capacity = textCapacity(within: limits)
        guard Int64(info.st_size) <= capacity else { throw tooLong(url.relativePath, capacity: capacity) }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw ManifestError(file: url.relativePath, message: "cannot read", underlying: error)
        }
    }

    /// What `lstat` says of `url`.
    private static func status(of url: URL) throws(ManifestError) -> stat {
        do {
            return try Syscall.status(of: url.path, in: AT_FDCWD, path: { url.relativePath })
        } catch {
            throw unreadable(url.relativePath, error)
        }
    }

    /// `file` could not be read: the call's error kept as the cause.
    private static func unreadable(_ file: String, _ error: FileWrapperError) -> ManifestError {
        ManifestError(file: file, message: "cannot read", underlying: error)
    }

    /// The most bytes of a manifest file read whole into memory: 1 KiB
    /// for each entry the limits allow (our snapshots take about 200 bytes
    /// an entry and its path) and 1 MiB; 2 GiB at the reading defaults,
    /// where a stream's spool may take 51 GiB (``ArchiveReadLimits/streamCapacity``).
    private static func textCapacity(within limits: ArchiveReadLimits) -> Int64 {
        let perEntry = Int64(limits.maxEntries).multipliedReportingOverflow(by: 1024)
        return perEntry.overflow || perEntry.partialValue > .max - (1 << 20) ? .max : perEntry.partialValue + (1 << 20)
    }

    /// The refusal of a manifest file longer than `capacity`
    /// (``textCapacity(within:)``), which ``ArchiveReadLimits/maxEntries`` raises.
    private static func tooLong(_ name: String, capacity: Int64) -> ManifestError {
        ManifestError(
            file: name, message: "the manifest file is longer than \(capacity) bytes, 1 KiB for each entry the limits allow "
                + "and 1 MiB", limit: .maxEntries)
    }
}
