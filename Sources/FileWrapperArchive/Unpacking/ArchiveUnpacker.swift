import FileWrapperKit
import Foundation
import Glibc

/// How an archive is unpacked.
public struct ArchiveUnpackOptions: Sendable, Hashable {
    /// The formats read; the others are refused with an error naming them.
    public var formats: ArchiveReadFormats
    public var limits: ArchiveReadLimits
    /// Replace an existing destination. It is replaced only once the whole
    /// archive has been unpacked; until then it stays as it was. The new
    /// tree's root takes the stricter of its own mode (0755, or its entry's)
    /// and the old directory's, so that a private destination stays private.
    public var replacesExisting: Bool
    /// Leading names taken off every entry's path (and a hard link's
    /// target), as `tar --strip-components`; an entry with no more names
    /// than that is skipped. The limits apply to the paths as stored.
    public var stripComponents = 0
    /// Keep a symlink whose target is absolute or leads out of the tree
    /// (`localtime -> /etc/localtime`, `zone -> ../../x`) as a link, instead
    /// of refusing the archive. It is made as it is stored and never
    /// followed during the unpack: no later entry is written through it,
    /// or through any symlink. Counted in ``ArchiveUnpackSummary/outsideLinks``.
    /// Hard links that lead out of the tree are refused whatever this says.
    public var keepsOutsideLinks = false

    /// An option that lifts a refusal, by the name of its property, for errors to name.
    public enum Option: String, Sendable, Hashable, CaseIterable {
        case keepsOutsideLinks
    }

    /// Options with the values given; each left out is the default.
    ///
    /// - Parameters:
    ///   - formats: The formats read.
    ///   - limits: What the archive may hold.
    ///   - replacesExisting: Whether an existing destination is replaced.
    public init(formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = .unpacking, replacesExisting: Bool = false) {
        self.formats = formats
        self.limits = limits
        self.replacesExisting = replacesExisting
    }
}

/// What an unpack made.
public struct ArchiveUnpackSummary: Sendable, Hashable {
    /// Entries in the archive.
    public var entries: Int
    /// Bytes of file contents written.
    public var bytes: Int64
    /// Symlinks that lead out of the destination, absolute or through
    /// `..`, resolved through the links the archive made: kept only with
    /// ``ArchiveUnpackOptions/keepsOutsideLinks``, so 0 without it.
    public var outsideLinks = 0
}

/// Unpacks an archive of any format libarchive reads, or Apple's flat RTFD
/// (recognised by its header), into a directory on disk, safely, whatever
/// the archive holds.
///
/// Everything is written into a fresh temporary directory beside the
/// destination, through directory descriptors (`openat` with `O_NOFOLLOW`,
/// `mkdirat`, `symlinkat`, `linkat`), and renamed into place at the end. On
/// any refusal or error the temporary is removed and the destination is as
/// it was. libarchive's own `archive_write_disk` is not used: it changes the
/// process umask (racing other threads, CVE-2023-30571), makes device nodes
/// and does not check where symlinks lead.
///
/// Refused, with an ``ArchiveError`` that names the archive and the entry:
/// absolute paths and `..` components; an entry for the destination itself
/// (`.`, `./`, an empty name) that is not a directory; a symlink whose
/// target is absolute or leads out of the tree, following the symlinks the
/// archive made before it (unless ``ArchiveUnpackOptions/keepsOutsideLinks``);
/// an entry below a symlink or a file; a hard link to anything but an earlier
/// regular file; device nodes, FIFOs and sockets; a path twice; encrypted
/// entries; damaged or truncated data; anything over ``ArchiveReadLimits``.
///
/// Kept: regular files, directories, symlinks and hard links, permission
/// bits without setuid, setgid, sticky and group or other write, and
/// modification times. A hard link that carries contents (SVR4 cpio's last
/// link of a group, a pax link) writes them into the file it names, as
/// bsdtar does. Owners, extended attributes and ACLs are not restored.
/// Directories get their modes and times last, deepest first; the root's
/// own entry (`.`, `./`, as `tar -C dir .` writes it) gives the destination
/// its mode and time.
///
/// Entries are read and checked in order on the calling thread, those of an
/// uncompressed tar by `PlainTarReader` unless it leaves the archive to
/// libarchive, from the start, as it does any other archive; files up to
/// 128 KiB are created by worker threads, one a processor, which have all
/// ended when `unpack` returns or throws. The workers also inflate small zip
/// members and check their sizes and CRC-32s.
public enum ArchiveUnpacker {
    /// Unpacks the archive at `archive` into the directory `destination`,
    /// which must not exist unless `options.replacesExisting`.
    ///
    /// - Parameters:
    ///   - archive: The archive file.
    ///   - destination: The directory to make.
    ///   - options: The formats, limits and refusals of the unpack.
    /// - Returns: What was made: counts, and the links kept.
    /// - Throws: ``ArchiveError`` naming the archive, and the entry where there
    ///   is one, for each refusal above, for damaged data, a limit passed, a
    ///   destination that exists, or a failed write (``ArchiveError/Code/io``,
    ///   its cause the `FileWrapperError`). Nothing is left behind.
    @discardableResult
    public static func unpack(
        archiveAt archive: URL, to destination: URL, options: ArchiveUnpackOptions = ArchiveUnpackOptions()
    ) throws -> ArchiveUnpackSummary {
        try unpack(archiveAt: archive, to: destination, options: options, progress: nil)
    }

    /// ``unpack(archiveAt:to:options:)``, counting into `progress` each
    /// entry made and each regular file's bytes, for a progress display.
    ///
    /// - Parameters:
    ///   - archive: The archive file.
    ///   - destination: The directory to make.
    ///   - options: The formats, limits and refusals of the unpack.
    ///   - progress: Counts entries and bytes made; nil for none.
    /// - Returns: What was made: counts, and the links kept.
    /// - Throws: ``ArchiveError``, as ``unpack(archiveAt:to:options:)``.
    @discardableResult
    public static func unpack(
        archiveAt archive: URL, to destination: URL, options: ArchiveUnpackOptions, progress: ManifestProgress?
    ) throws -> ArchiveUnpackSummary {
        if let blob = try FlatRTFDArchive(url: archive, limits: options.limits) {
            return try unpack(FlatRTFDEntryStream(unpacking: blob), to: destination, options: options, progress: progress)
        }
        // Below a ratio of 1, where the bytes counted as read decide, libarchive's count is the reference.
        if options.limits.maxRatio >= 1, let reader = PlainTarReader.opening(archive, formats: options.formats) {
            do {
                return try unpack(reader, to: destination, options: options, progress: progress)
            } catch is PlainTarReader.Unsupported {
                // libarchive reads it from the start; nothing of this attempt is left.
            }
        }
        return try unpack(ArchiveReadHandle.reading(archive, formats: options.formats, limits: options.limits), to: destination, options: options,
                          progress: progress)
    }

    /// Unpacks the archive that the open descriptor `fd` brings from its
    /// current offset into `destination`, as ``unpack(archiveAt:to:options:progress:)``
    /// unpacks a file: a stream (a pipe, a socket) as it comes, with the
    /// same checks and limits, a zip or 7z one through an unnamed spool,
    /// since they are read by seeking. The caller keeps and closes `fd`;
    /// `name` stands for the archive in errors.
    ///
    /// - Parameters:
    ///   - fd: An open descriptor, read from its current offset.
    ///   - name: The archive's name in errors.
    ///   - destination: The directory to make.
    ///   - options: The formats, limits and refusals of the unpack.
    ///   - progress: Counts entries and bytes made; nil for none.
    /// - Returns: What was made: counts, and the links kept.
    /// - Throws: ``ArchiveError``, as ``unpack(archiveAt:to:options:)``.
    @discardableResult
    public static func unpack(
        archiveFrom fd: CInt, name: String, to destination: URL, options: ArchiveUnpackOptions = ArchiveUnpackOptions(),
        progress: ManifestProgress? = nil
    ) throws -> ArchiveUnpackSummary {
        // The destination is checked before the stream is read, so that a refusal consumes nothing.
        try UnpackDestination(destination, archive: name, replacesExisting: options.replacesExisting).close()
        let source = ArchiveReadSource(fd: fd, name: name)
        if let blob = try FlatRTFDArchive(source, limits: options.limits) {
            return try unpack(FlatRTFDEntryStream(unpacking: blob), to: destination, options: options, progress: progress)
        }
        let handle = try ArchiveReadHandle.reading(source, formats: options.formats, limits: options.limits)
        return try unpack(handle, to: destination, options: options, progress: progress)
    }

    /// Unpacks what `input` reads into `destination`, through a temporary
    /// directory beside it that is removed on any error.
    private static func unpack(
        _ input: any ArchiveEntryStream, to destination: URL, options: ArchiveUnpackOptions, progress: ManifestProgress?
    ) throws -> ArchiveUnpackSummary {
        let archivePath = input.name
        let place = try UnpackDestination(destination, archive: archivePath, replacesExisting: options.replacesExisting)
        defer { place.close() }

        let replacement = PendingReplacement(of: place.name, in: place.parent, parentPath: place.parentPath)
        let temporary = replacement.temporary
        let root = try place.io(entry: nil) {
            try Syscall.makeDirectory(temporary, in: place.parent, mode: 0o700, path: { place.path })
            return OpenDirectory(try Syscall.openDirectory(temporary, in: place.parent, path: { place.path }))
        }
        do {
            let extraction = Extraction(input: input, root: root, place: place, limits: options.limits, strip: options.stripComponents,
                                        keepsOutsideLinks: options.keepsOutsideLinks, progress: progress)
            try extraction.run()
            // The root's mode (0755, or its own entry's) made no looser than the destination it replaces.
            try place.io(entry: nil) {
                let given = try Syscall.status(of: root.fd, path: { place.path }).st_mode & 0o7777
                let mode = replacement.directoryMode(given)
                if mode != given { try Syscall.retrying(.fchmod, { place.path }) { fchmod(root.fd, mode) } }
            }
            try place.commit(replacement)
            return ArchiveUnpackSummary(entries: extraction.entries, bytes: extraction.budget.bytes, outsideLinks: extraction.outsideLinks)
        } catch {
            replacement.discard()
            throw error
        }
    }
}

/// The destination: its parent directory, opened once, and its name there.
struct UnpackDestination {
    let parent: CInt
    let parentPath: String
    let name: String
    let archive: String
    let replacesExisting: Bool

    var path: String { PathDisplay.join(parentPath, [name]) }

    init(_ url: URL, archive: String, replacesExisting: Bool) throws {
        let standardized = url.standardizedFileURL
        name = standardized.lastPathComponent
        parentPath = standardized.deletingLastPathComponent().path
        self.archive = archive
        self.replacesExisting = replacesExisting
        guard !name.isEmpty, name != "/", name != ".", name != ".." else {
            throw ArchiveError(.io, archive: archive, message: "\(url.path) cannot be a destination")
        }
        let parentPath = parentPath
        parent = try ArchiveError.io(archive: archive) {
            try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
        }
        if !replacesExisting, exists() { throw alreadyExists() }
    }

    func close() {
        Syscall.close(parent)
    }

    private func exists() -> Bool {
        Syscall.statusIfPresent(of: name, in: parent) != nil
    }

    private func alreadyExists() -> ArchiveError {
        ArchiveError(.destinationExists, archive: archive,
                     message: "\(path) already exists")
    }

    /// Puts the finished tree of `replacement` in place: over what is there
    /// only when replacing was asked for. Left to the kernel's writeback
    /// (``Durability/deferred``), as tar and unzip leave what they unpack.
    func commit(_ replacement: PendingReplacement) throws {
        do {
            try replacement.commit(.deferred, overwriting: replacesExisting)
        } catch let error where error.errno?.rawValue == EEXIST && !replacesExisting {
            throw alreadyExists()
        } catch {
            throw ArchiveError(error, archive: archive)
        }
    }

    /// Runs system calls, turning their errors into an ``ArchiveError``
    /// that names the archive and the entry.
    @discardableResult
    func io<Result>(entry: String?, _ body: () throws -> Result) throws -> Result {
        try ArchiveError.io(archive: archive, entry: entry, body)
    }
}
