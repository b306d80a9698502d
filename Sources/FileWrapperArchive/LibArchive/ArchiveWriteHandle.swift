import CArchive
import FileWrapperKit
import Foundation
import Glibc

/// One libarchive write handle (`archive_write_new`), configured for a
/// format other than zip (``ZipWriter`` writes those) and opened on a
/// callback; freed with the object. Every call runs under ``ArchiveLocale``.
///
/// A pax tar is ours (``TarWriter``): for one compressed with a filter
/// other than zstd, this handle only compresses it, its format libarchive's
/// raw one, whose one entry's data passes through the filter unchanged
/// (``writeRaw(_:)``).
final class ArchiveWriteHandle: ArchiveEntryWriter {
    private let archive: OpaquePointer
    /// The archive's name for errors.
    let name: String
    private let options: ArchiveWriteOptions
    private let entry: OpaquePointer
    /// Where bytes go, and the error the callback threw.
    private var sink: Sink?
    /// For zstd, our compressor on every core in place of libarchive's filter.
    private var zstd: ZstdCompressor?

    final class Sink {
        let write: (UnsafeRawBufferPointer) throws -> Void
        var error: Error?
        init(_ write: @escaping (UnsafeRawBufferPointer) throws -> Void) { self.write = write }
    }

    init(options: ArchiveWriteOptions, name: String) throws {
        guard let archive = archive_write_new(), let entry = archive_entry_new() else {
            throw ArchiveError(.libarchive, archive: name, message: "libarchive could not allocate a writer")
        }
        self.archive = archive
        self.entry = entry
        self.name = name
        self.options = options
        try ArchiveLocale.withUTF8 { try configure() }
    }

    deinit {
        archive_entry_free(entry)
        archive_write_free(archive)
    }

    private func configure() throws {
        let format = options.format
        switch format.container {
        case .zip:
            preconditionFailure("zip is written by ZipWriter")
        case .pax:
            try check(archive_write_set_format_raw(archive))
        case .ustar:
            try check(archive_write_set_format_ustar(archive))
        case .gnutar:
            try check(archive_write_set_format_gnutar(archive))
        case .cpio:
            try check(archive_write_set_format_cpio_newc(archive))
        case .sevenZip:
            try check(archive_write_set_format_7zip(archive))
            if let level = options.compressionLevel {
                try setFormatOption("7zip", "compression-level", String(level))
            }
        }
        if format.compression != .none, format.compression != .zstd {
            // Our compression names are libarchive's filter names.
            let filter = format.compression.rawValue
            try check(archive_write_add_filter_by_name(archive, filter))
            if let level = options.compressionLevel {
                try check(archive_write_set_filter_option(archive, filter, "compression-level", String(level)))
            }
        }
        if format.compression == .gzip, options.reproducible {
            try check(archive_write_set_filter_option(archive, "gzip", "timestamp", nil))
        }
        // No padding after the last byte: a compressed stream must end where
        // its data ends (zstd reads trailing zeros as a broken frame), and tar
        // readers need only tar's own two end blocks.
        try check(archive_write_set_bytes_in_last_block(archive, 1))
    }

    private func setFormatOption(_ module: String, _ option: String, _ value: String) throws {
        try check(archive_write_set_format_option(archive, module, option, value))
    }

    /// Writes through `write`, which gets the archive's bytes in order.
    func open(sink write: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        var write = write
        if options.format.compression == .zstd {
            let compressor = try ZstdCompressor(level: options.compressionLevel, name: name, output: write)
            zstd = compressor
            write = compressor.write
        }
        let sink = Sink(write)
        self.sink = sink
        try ArchiveLocale.withUTF8 {
            try check(archive_write_open2(
                archive, Unmanaged.passUnretained(sink).toOpaque(), nil,
                { _, context, buffer, length in
                    let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                    do {
                        try sink.write(UnsafeRawBufferPointer(start: buffer, count: length))
                        return length
                    } catch {
                        sink.error = error
                        return -1
                    }
                },
                nil, nil))
            if options.format.container == .pax {
                archive_entry_clear(entry)
                archive_entry_set_filetype(entry, UInt32(Glibc.S_IFREG))
                try check(archive_write_header(archive, entry))
            }
        }
    }

    func writeHeader(_ header: ArchiveEntryHeader, stored: Bool) throws {
        try ArchiveLocale.withUTF8 {
            archive_entry_clear(entry)
            // As the multibyte name, which is written as it is: set as UTF-8,
            // libarchive converts it to NFC for the 7z and cpio writers.
            archive_entry_copy_pathname(entry, header.path)
            // libarchive's AE_IF* values are the POSIX S_IF* ones.
            let type: mode_t = switch header.kind {
            case .regularFile: S_IFREG
            case .directory: S_IFDIR
            case .symbolicLink: S_IFLNK
            }
            archive_entry_set_filetype(entry, UInt32(type))
            archive_entry_set_perm(entry, mode_t(header.permissions))
            archive_entry_set_size(entry, la_int64_t(header.kind == .regularFile ? header.size : 0))
            archive_entry_set_mtime(entry, time_t(header.modified.seconds), Int(header.modified.nanoseconds))
            archive_entry_set_uid(entry, la_int64_t(header.owner?.userID ?? 0))
            archive_entry_set_gid(entry, la_int64_t(header.owner?.groupID ?? 0))
            if let target = header.linkTarget {
                // As bytes: given as UTF-8, a target that is not UTF-8 was
                // dropped, and the 7z writer crashed on the missing target.
                (target + [0]).withUnsafeBufferPointer {
                    $0.withMemoryRebound(to: CChar.self) { archive_entry_copy_symlink(entry, $0.baseAddress) }
                }
            }
            try check(archive_write_header(archive, entry), entry: header.path)
        }
    }

    func writeData(_ bytes: UnsafeRawBufferPointer, entry path: String) throws {
        try write(bytes, entry: path)
    }

    /// Compresses bytes of the tar that ``TarWriter`` writes (the raw format).
    func writeRaw(_ bytes: UnsafeRawBufferPointer) throws {
        try write(bytes, entry: nil)
    }

    private func write(_ bytes: UnsafeRawBufferPointer, entry path: String?) throws {
        guard bytes.count > 0 else { return }
        try ArchiveLocale.withUTF8 {
            var offset = 0
            while offset < bytes.count {
                let written = archive_write_data(archive, bytes.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else {
                    try check(CInt(truncatingIfNeeded: written < 0 ? written : Int(ARCHIVE_FATAL)), entry: path)
                    return
                }
                offset += written
            }
        }
    }

    /// Finishes the archive: trailers, padding, the filter's last bytes.
    func close() throws {
        try ArchiveLocale.withUTF8 {
            try check(archive_write_close(archive))
            try zstd?.finish()
        }
    }

    /// Throws for a status below `ARCHIVE_WARN`, with libarchive's message,
    /// or the error a sink threw, naming the entry being written.
    private func check(_ status: CInt, entry path: String? = nil) throws {
        guard status < ARCHIVE_WARN else { return }
        if var error = sink?.error as? ArchiveError, error.entry == nil {
            error.entry = path
            throw error
        }
        if let error = sink?.error { throw error }
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive failed (status \(status))"
        throw ArchiveError(.libarchive, archive: name, entry: path, message: message)
    }
}
