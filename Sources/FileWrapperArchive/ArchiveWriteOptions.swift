import FileWrapperKit
import Foundation

/// How an archive is written.
public struct ArchiveWriteOptions: Sendable, Hashable {
    /// How a zip entry is compressed.
    public enum ZipMethod: String, Sendable, Hashable {
        case deflate, store
    }

    public var format: ArchiveFormat
    /// The filter's or zip's compression level (gzip, bzip2, lz4 1-9, zip
    /// deflate 0-9 where 0 stores, xz 0-9, zstd 1-22); `nil` for the
    /// default (zip: 6, as Info-ZIP).
    public var compressionLevel: Int?
    /// Zip only: deflate (the default; an entry that deflate does not make
    /// smaller is stored) or store every entry.
    public var zipMethod: ZipMethod
    /// Byte-for-byte reproducible output: owner 0 without names, times
    /// clamped to `SOURCE_DATE_EPOCH` when it is set (and taken from it for
    /// entries without a time), gzip without a timestamp. Entries are always
    /// written in the same order, and zip times are always in UTC, so the
    /// bytes do not depend on the time zone either.
    public var reproducible: Bool
    /// Zip only: a top-level regular file written first and stored
    /// uncompressed, as EPUB and OpenDocument require of `mimetype`.
    public var firstStoredEntry: String?
    /// An archive written to a URL: `Durability.synced` (the default)
    /// returns once it is on disk, as every save of this package does;
    /// `Durability.deferred` leaves it to the kernel's writeback, as
    /// `cp`, `tar` and `zip` do, for a batch that syncs once at its end
    /// (`sync -f`), or output that can be made again.
    public var durability: Durability

    /// Options with the values given; each left out is the default.
    ///
    /// - Parameters:
    ///   - format: The archive's format.
    ///   - compressionLevel: The filter's or zip's level; nil for the default.
    ///   - zipMethod: Zip only: deflate or store.
    ///   - reproducible: Whether the bytes must not depend on owner, time or
    ///     time zone.
    ///   - firstStoredEntry: Zip only: the file written first, stored.
    ///   - durability: Whether an archive written to a URL is synced.
    public init(
        format: ArchiveFormat, compressionLevel: Int? = nil, zipMethod: ZipMethod = .deflate,
        reproducible: Bool = false, firstStoredEntry: String? = nil, durability: Durability = .synced
    ) {
        self.format = format
        self.compressionLevel = compressionLevel
        self.zipMethod = zipMethod
        self.reproducible = reproducible
        self.firstStoredEntry = firstStoredEntry
        self.durability = durability
    }
}
