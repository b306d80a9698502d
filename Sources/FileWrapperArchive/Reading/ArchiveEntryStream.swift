import Glibc

/// An archive read entry after entry, each header then its data: what an
/// unpack reads. libarchive (``ArchiveReadHandle``) reads every format;
/// ``PlainTarReader`` reads the common plain tar files with less work.
protocol ArchiveEntryStream: AnyObject {
    /// The archive's name for errors.
    var name: String { get }

    /// The next entry's header, or `nil` at the end of the archive.
    func nextHeader() throws -> ArchiveReadHandle.Header?

    /// Reads the current entry's next bytes into `buffer`; 0 at its end.
    func readData(into buffer: UnsafeMutableRawBufferPointer, entry: String) throws -> Int

    /// Passes over the current entry's contents; throws if the archive ends
    /// before they do.
    func skipData(entry: String) throws

    /// Where the current entry's contents lie, byte for byte, in the archive
    /// file, before any of them is read: the archive's descriptor and the
    /// offset of the first byte; nil when they do not lie there as they
    /// are. The caller may copy them from there, then ``skipData(entry:)``.
    var storedContents: (fd: CInt, offset: Int64)? { get }

    /// Bytes of the archive itself read so far (before decompression), for
    /// the compression-ratio limit.
    var archiveBytesRead: Int64 { get }

    /// The format's name, for a manifest's source; nil when unknown.
    var formatName: String? { get }

    /// Whether the format records owners (tar and cpio do).
    var recordsOwners: Bool { get }
}

extension ArchiveEntryStream {
    var formatName: String? { nil }
    var recordsOwners: Bool { false }
}
