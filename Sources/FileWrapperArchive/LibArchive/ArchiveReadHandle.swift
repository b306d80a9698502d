import CArchive
import Foundation
import Glibc

/// One libarchive read handle (`archive_read_new`) over a descriptor or
/// bytes in memory, with every format and filter libarchive reads; freed
/// with the object. Every call runs under ``ArchiveLocale``.
final class ArchiveReadHandle {
    private let archive: OpaquePointer
    /// The archive's name for errors.
    let name: String
    /// A copy of in-memory input, alive as long as libarchive reads it.
    private var memory: UnsafeMutableRawBufferPointer?

    init(name: String) throws {
        guard let archive = archive_read_new() else {
            throw ArchiveError(.libarchive, archive: name, message: "libarchive could not allocate a reader")
        }
        self.archive = archive
        self.name = name
        archive_read_support_filter_all(archive)
        archive_read_support_format_all(archive)
    }

    deinit {
        archive_read_free(archive)
        memory?.deallocate()
    }

    /// Reads from the open descriptor `fd`, which the caller keeps and closes.
    func open(fd: CInt) throws {
        try ArchiveLocale.withUTF8 { try check(archive_read_open_fd(archive, fd, 1 << 16), entry: nil) }
    }

    /// Reads from a copy of `data`.
    func open(data: Data) throws {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.copyBytes(to: copy)
        memory = copy
        try ArchiveLocale.withUTF8 { try check(archive_read_open_memory(archive, copy.baseAddress, data.count), entry: nil) }
    }

    /// An entry's header, as libarchive decoded it.
    struct Header {
        var path: String?
        var rawPath: String
        var type: mode_t
        var permissions: UInt16
        var modified: (seconds: Int64, nanoseconds: Int32)
        var owner: (user: UInt32, group: UInt32)
        var symlinkTarget: [UInt8]?
        var hardlinkTarget: String?
        var isEncrypted: Bool
    }

    /// The next entry's header, or `nil` at the end of the archive.
    func nextHeader() throws -> Header? {
        try ArchiveLocale.withUTF8 {
            var entry: OpaquePointer?
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { return nil }
            // A warning or a retry (a damaged header libarchive skipped past)
            // means entries may be missing or wrong: refuse, never guess.
            guard status == ARCHIVE_OK else { throw failure(status, entry: nil) }
            guard let entry else { return nil }
            let rawPath = archive_entry_pathname(entry).map { String(decoding: Self.bytes($0), as: UTF8.self) } ?? ""
            return Header(
                path: archive_entry_pathname_utf8(entry).map { String(decoding: Self.bytes($0), as: UTF8.self) },
                rawPath: rawPath,
                type: mode_t(archive_entry_filetype(entry)),
                permissions: UInt16(archive_entry_perm(entry) & 0o7777),
                modified: (Int64(archive_entry_mtime(entry)), Int32(archive_entry_mtime_nsec(entry))),
                owner: (UInt32(truncatingIfNeeded: archive_entry_uid(entry)), UInt32(truncatingIfNeeded: archive_entry_gid(entry))),
                symlinkTarget: archive_entry_symlink(entry).map(Self.bytes),
                hardlinkTarget: archive_entry_hardlink_utf8(entry).map { String(decoding: Self.bytes($0), as: UTF8.self) },
                isEncrypted: archive_entry_is_encrypted(entry) != 0)
        }
    }

    /// Reads the current entry's next bytes into `buffer`; 0 at its end.
    func readData(into buffer: UnsafeMutableRawBufferPointer, entry: String) throws -> Int {
        try ArchiveLocale.withUTF8 {
            let count = archive_read_data(archive, buffer.baseAddress, buffer.count)
            guard count >= 0 else { throw failure(CInt(truncatingIfNeeded: count), entry: entry) }
            return count
        }
    }

    /// Throws for a status below `ARCHIVE_WARN`, with libarchive's message.
    private func check(_ status: CInt, entry: String?) throws {
        guard status < ARCHIVE_WARN else { return }
        throw failure(status, entry: entry)
    }

    /// The error for a failed call, with libarchive's message.
    private func failure(_ status: CInt, entry: String?) -> ArchiveError {
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive failed (status \(status))"
        return ArchiveError(.corrupt, archive: name, entry: entry, message: message)
    }

    /// Bytes of the archive itself read so far (before decompression),
    /// for the compression-ratio limit.
    var archiveBytesRead: Int64 {
        Int64(archive_filter_bytes(archive, -1))
    }

    private static func bytes(_ string: UnsafePointer<CChar>) -> [UInt8] {
        Array(UnsafeBufferPointer(start: string, count: strlen(string))).map { UInt8(bitPattern: $0) }
    }
}
