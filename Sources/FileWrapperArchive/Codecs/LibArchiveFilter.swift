import CArchive

/// A compression that needs memory of a fixed size (gzip's 32 KiB window,
/// bzip2's blocks of at most 900 KiB, lz4's of at most 4 MiB, compress's
/// table), decoded by libarchive in a read handle of its own that passes
/// the decoded bytes on as they are (its `raw` format): the format reader
/// gets them from ``ArchiveReadSource``, after the ``DeclaredSizeCheck``s.
final class LibArchiveFilter: CompressionDecoder {
    private let archive: OpaquePointer
    private let input: ArchiveReadSource
    /// Adds libarchive's filter for the compression to a reader.
    private let filter: @Sendable (OpaquePointer) -> CInt
    /// Whether the input decodes to nothing at all (libarchive's `empty` format).
    private let isEmpty: Bool
    private(set) var error: ArchiveError?

    /// Decodes `input` with the libarchive filter that `filter` adds.
    init(input: ArchiveReadSource, filter: @escaping @Sendable (OpaquePointer) -> CInt) throws {
        guard let archive = archive_read_new() else {
            throw ArchiveError(.libarchive, archive: input.name, message: "libarchive could not allocate a reader")
        }
        self.archive = archive
        self.input = input
        self.filter = filter
        var entry: OpaquePointer?
        let status = ArchiveLocale.withUTF8 {
            _ = archive_read_support_format_raw(archive)
            _ = archive_read_support_format_empty(archive)
            guard filter(archive) == ARCHIVE_OK, input.open(archive) == ARCHIVE_OK else { return ARCHIVE_FATAL }
            return archive_read_next_header(archive, &entry)
        }
        isEmpty = status == ARCHIVE_EOF
        // Thrown once every property is set, so deinit frees the handle.
        guard status == ARCHIVE_OK || isEmpty else { throw failure() }
    }

    deinit {
        archive_read_free(archive)
    }

    var archiveBytesRead: Int64 {
        Int64(archive_filter_bytes(archive, -1))
    }

    func rewound() -> (any CompressionDecoder)? {
        guard let input = input.rewound() else { return nil }
        return try? LibArchiveFilter(input: input, filter: filter)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard error == nil else { return -1 }
        guard !isEmpty else { return 0 }
        let count = ArchiveLocale.withUTF8 { archive_read_data(archive, buffer.baseAddress, buffer.count) }
        guard count >= 0 else {
            error = failure()
            return -1
        }
        return count
    }

    /// The input's failure, or libarchive's message.
    private func failure() -> ArchiveError {
        if let error = input.error { return error }
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive failed to decode the compression"
        return ArchiveError(.corrupt, archive: input.name, message: message)
    }
}
