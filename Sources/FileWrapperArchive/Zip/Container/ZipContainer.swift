import FileWrapperKit
import Foundation

/// Zip-container documents (OpenDocument, Office Open XML, EPUB, and any
/// zip) as a FileWrapper tree that is read lazily and saved incrementally.
///
/// ``fileWrapper(contentsOf:limits:)`` reads the zip's central directory
/// and nothing else; a regular file's member is read on first use, alone,
/// decoded and checked (size, CRC-32) as it is read. ``write(_:to:options:)``
/// copies every member that was not touched as it is stored, and compresses
/// only the changed and new ones.
public enum ZipContainer {
    /// The tree of the zip at `url`: a directory wrapper whose children are
    /// its top-level members. Names are checked as ``ArchiveReader`` checks
    /// them, with its errors, before the tree is built. `limits` bound the
    /// entries, the names and what each member declares (members are read
    /// one at a time; the memory a member's data declares for decoding it
    /// is held to ``ArchiveReadLimits/maxMemory``). Members may be stored
    /// or deflated (read here), or compressed with bzip2, LZMA, zstd, xz or
    /// PPMd (decoded by libarchive over that member alone). A member of
    /// another method (Deflate64, implode...), which libarchive does not
    /// decode either, or a zip without a central directory, is refused
    /// with ``ArchiveError/Code/unsupportedFormat``; an encrypted member
    /// with ``ArchiveError/Code/encrypted``.
    ///
    /// A member read after the zip at `url` was replaced or written to
    /// fails with `FileWrapperError.Code.changedOnDisk`; a damaged one
    /// fails naming the archive and the member. After a save
    /// (``write(_:to:options:)``), the members read from the zip written
    /// within the same `limits`.
    ///
    /// - Parameters:
    ///   - url: The zip.
    ///   - limits: What the zip and its members may hold.
    /// - Returns: The root directory wrapper, its members read lazily.
    /// - Throws: ``ArchiveError`` naming the archive, and the member where
    ///   there is one, when the zip cannot be read, its central directory is
    ///   damaged or missing, a member is refused as above, or a limit is
    ///   passed.
    public static func fileWrapper(contentsOf url: URL, limits: ArchiveReadLimits = .unpacking) throws -> FileWrapper {
        try ZipContainerIndex(path: url.path, name: url.relativePath, limits: limits).root
    }

    /// Writes `wrapper` (a directory) as a zip at `url`, which may be the
    /// zip it was read from: each member whose wrapper still reads it
    /// from a zip, with the attributes it was read with, is copied as
    /// stored (local header, compressed data and CRC, `copy_file_range`);
    /// the others are compressed on every core as ``ArchiveWriter`` does.
    /// Members keep the order of the zip the tree came from (a stored
    /// `mimetype` first); new ones go at the end. The zip is replaced
    /// atomically, as ``ArchiveWriter/write(_:to:options:)`` replaces it,
    /// and the tree's files then read from the new zip, within the limits
    /// they were read with (the tightest, when they come from several zips).
    ///
    /// To change a member, replace its wrapper in its directory; changing
    /// its attributes writes it anew too.
    ///
    /// - Parameters:
    ///   - wrapper: The tree, a directory.
    ///   - url: The zip to write or replace.
    ///   - options: How to write the members that are not copied.
    /// - Throws: ``ArchiveError`` naming the archive and the member when a
    ///   member cannot be written or copied, or writing fails
    ///   (``ArchiveError/Code/io``); `FileWrapperError`
    ///   (`FileWrapperError.Code.changedOnDisk`) when a zip a member is
    ///   copied from changed since it was read. `url` is left as it was.
    public static func write(
        _ wrapper: FileWrapper, to url: URL, options: ArchiveWriteOptions = ArchiveWriteOptions(format: .zip)
    ) throws {
        try ZipContainerWriter(options: options).write(wrapper, to: url)
    }

    /// Points the regular files of `wrapper`, read from a zip that has
    /// since been renamed to `url` (the same file: same device, inode,
    /// size and time), at it; the others are left as they are.
    package static func follow(_ wrapper: FileWrapper, movedTo url: URL) {
        var pending = [wrapper]
        while let next = pending.popLast() {
            if let member = next.regularFileSource as? ZipMemberSource {
                ZipContainerWriter.rebind(wrapper, toZipAt: url, identity: member.archive.identity)
                return
            }
            pending += (next.fileWrappers ?? [:]).values
        }
    }
}
