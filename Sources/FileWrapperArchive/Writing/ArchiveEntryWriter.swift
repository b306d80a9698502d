import FileWrapperKit

/// One entry's header, as the writers take it.
struct ArchiveEntryHeader {
    var path: String
    var kind: FileKind
    var permissions: UInt16
    /// The size of a regular file's contents, which follow in
    /// ``ArchiveEntryWriter/writeData(_:entry:)`` calls; 0 for the others.
    var size: Int
    var modified: FileTimestamp
    var owner: FileOwner?
    var linkTarget: [UInt8]?
    /// Reads `length` bytes of a regular file's contents at each of
    /// `offsets`, ahead of its ``ArchiveEntryWriter/writeData(_:entry:)``
    /// calls, so that the zip writer can judge the whole file from samples
    /// before its header; nil when the contents can only be read in order.
    var samples: ((_ offsets: [Int], _ length: Int) throws -> [[UInt8]]?)? = nil
}

/// What turns entries into an archive's bytes, passed to a sink in order:
/// ``ZipWriter`` for zip, ``TarWriter`` for pax tar, libarchive's writer
/// (``ArchiveWriteHandle``) for every other format.
protocol ArchiveEntryWriter: AnyObject {
    /// Starts an entry; a regular file's `header.size` bytes follow. `stored`
    /// asks a zip to keep this entry uncompressed and without an extra field
    /// (EPUB's `mimetype`, whose contents must start at offset 38).
    func writeHeader(_ header: ArchiveEntryHeader, stored: Bool) throws
    /// Writes bytes of the current entry.
    func writeData(_ bytes: UnsafeRawBufferPointer, entry path: String) throws
    /// Finishes the archive; the sink has every byte when it returns.
    func close() throws
}

extension ArchiveWriteOptions {
    /// The writer for these options, passing the archive's bytes to `sink`.
    func makeEntryWriter(
        name: String, sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws -> any ArchiveEntryWriter {
        switch (format.container, format.compression) {
        case (.zip, _):
            return try ZipWriter(options: self, name: name, sink: sink)
        case (.pax, .none):
            return TarWriter(alignsLargeFiles: true, sink: sink, finish: {})
        case (.pax, .zstd):
            let compressor = try ZstdCompressor(level: compressionLevel, name: name, output: sink)
            return TarWriter(alignsLargeFiles: false, sink: compressor.write, finish: compressor.finish)
        case (.pax, _):
            let filter = try ArchiveWriteHandle(options: self, name: name)
            try filter.open(sink: sink)
            return TarWriter(alignsLargeFiles: false, sink: filter.writeRaw, finish: filter.close)
        default:
            let handle = try ArchiveWriteHandle(options: self, name: name)
            try handle.open(sink: sink)
            return handle
        }
    }
}
