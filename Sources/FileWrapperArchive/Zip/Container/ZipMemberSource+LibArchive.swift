import CArchive
import FileWrapperKit

extension ZipMemberSource {
    /// Decodes the member's compressed data, which begins at `dataStart` in
    /// the open zip `fd` after the local header `header`, with libarchive's
    /// streaming zip reader (`archive_read_support_format_zip_streamable`):
    /// for the methods that only libarchive decodes here (bzip2, LZMA,
    /// zstd, xz, PPMd), with the same code that reads them in memory
    /// (``ArchiveReader``). libarchive reads a zip stream of this member
    /// alone (``ZipMemberStream``), so it reads nothing else of the zip, and
    /// decodes into a buffer of its own, of a fixed size, which is handed
    /// to `deliver` in blocks of at most `blockSize` bytes: `deliver` stops
    /// the data once it expands past the member's size. The memory the
    /// data declares (an LZMA or xz dictionary, a PPMd model, a zstd
    /// window) is held to the limit the tree was read with
    /// (``ZipArchiveFile/limits``) before libarchive allocates it
    /// (``ZipMethodCheck``). The CRC-32 is left to the caller, which checks
    /// it for every method (libarchive's check is off: `zip:ignorecrc32`).
    func decodeWithLibArchive(
        _ fd: CInt, dataStart: Int64, header: ZipLocalHeader, blockSize: Int,
        deliver: (UnsafeRawBufferPointer) throws(FileWrapperError) -> Void
    ) throws(FileWrapperError) {
        let stream = ZipMemberStream(member: self, fd: fd, dataStart: dataStart, local: header)
        let source = ArchiveReadSource(decoding: stream, name: archive.path)
        source.checks.append(ZipMethodCheck(budget: MemoryBudget(bytes: archive.limits.maxMemory, archive: archive.path), archiveOffset: localHeaderOffset))
        guard let reader = archive_read_new() else {
            throw FileWrapperError(.ioError, path: archive.path, detail: "libarchive could not allocate a reader to decode member \"\(entry)\"")
        }
        defer { archive_read_free(reader) }
        try withExtendedLifetime(source) { () throws(FileWrapperError) in
            var entry: OpaquePointer?
            guard archive_read_support_format_zip_streamable(reader) == ARCHIVE_OK,
                  archive_read_set_options(reader, "zip:ignorecrc32") == ARCHIVE_OK,
                  ArchiveLocale.withUTF8({ source.open(reader) == ARCHIVE_OK && archive_read_next_header(reader, &entry) == ARCHIVE_OK })
            else { throw failure(of: reader, stream: stream, source: source) }
            while true {
                var block: UnsafeRawPointer?
                var count = 0
                var offset: la_int64_t = 0
                let status = archive_read_data_block(reader, &block, &count, &offset)
                if status == ARCHIVE_EOF { return }
                guard status == ARCHIVE_OK else { throw failure(of: reader, stream: stream, source: source) }
                var handed = 0
                while handed < count, let block {
                    let piece = min(blockSize, count - handed)
                    try deliver(UnsafeRawBufferPointer(start: block + handed, count: piece))
                    handed += piece
                }
            }
        }
    }

    /// Why libarchive stopped: the zip could not be read (it ends early or
    /// was changed), the data declares more memory than the limit allows,
    /// or libarchive found it damaged.
    private func failure(of reader: OpaquePointer, stream: ZipMemberStream, source: ArchiveReadSource) -> FileWrapperError {
        if let failure = stream.failure { return failure }
        if let refusal = source.error {
            return FileWrapperError(.ioError, path: archive.path, detail: refusal.message)
        }
        let message = archive_error_string(reader).map { String(cString: $0) } ?? "libarchive stopped without a message"
        return archive.damage(member: entry, "the compressed data cannot be decoded (\(message))")
    }
}
