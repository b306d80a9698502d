/// What an archive is written as: a container format and, for tar and cpio,
/// a compression filter around it.
public struct ArchiveFormat: Hashable, Sendable, CustomStringConvertible {
    /// How entries are laid out.
    public enum Container: String, Hashable, Sendable, CaseIterable {
        /// Zip, each entry stored or deflated (deflate unless asked otherwise).
        case zip
        /// POSIX pax tar: nanosecond times, UTF-8 names of any length.
        case pax
        /// POSIX ustar: 100-byte names (155 with prefix), whole-second times.
        case ustar
        /// GNU tar: long names through GNU extensions, whole-second times.
        case gnutar
        /// cpio in the SVR4 "newc" layout: whole-second times.
        case cpio
        /// 7-Zip.
        case sevenZip = "7z"
    }

    /// The filter a tar or cpio stream goes through; the raw values are
    /// libarchive's filter names. `lzma` is LZMA Utils' "alone" format
    /// (`.lzma`, `.tlz`), which xz replaced and bsdtar still writes.
    public enum Compression: String, Hashable, Sendable, CaseIterable {
        case none, gzip, bzip2, xz, zstd, lz4, lzma
    }

    public var container: Container
    public var compression: Compression

    /// The format of `container` through `compression`.
    ///
    /// - Parameters:
    ///   - container: The archive format.
    ///   - compression: The filter; only pax, ustar, gnutar and cpio take one
    ///     other than `.none`, and another is a programmer error.
    public init(_ container: Container, compression: Compression = .none) {
        precondition(compression == .none || [.pax, .ustar, .gnutar, .cpio].contains(container),
                     "\(container) archives carry their own compression")
        self.container = container
        self.compression = compression
    }

    /// Whether archives of this format record the root directory's own
    /// mode, time and owner, in a first entry `./` (tar) or `.` (cpio), as
    /// `tar -C dir .` and `find . | cpio -o` do. Zip and 7z do not: the
    /// document containers written as zips list their members alone
    /// (EPUB's `mimetype` first), and 7-Zip writes no such entry.
    var recordsRoot: Bool {
        container != .zip && container != .sevenZip
    }

    public static let zip = ArchiveFormat(.zip)
    public static let tar = ArchiveFormat(.pax)
    public static let tarGzip = ArchiveFormat(.pax, compression: .gzip)
    public static let tarBzip2 = ArchiveFormat(.pax, compression: .bzip2)
    public static let tarXz = ArchiveFormat(.pax, compression: .xz)
    public static let tarZstd = ArchiveFormat(.pax, compression: .zstd)
    public static let tarLz4 = ArchiveFormat(.pax, compression: .lz4)
    public static let tarLzma = ArchiveFormat(.pax, compression: .lzma)
    public static let cpio = ArchiveFormat(.cpio)
    public static let sevenZip = ArchiveFormat(.sevenZip)

    /// Every format this library writes, each container once and pax tar
    /// through every compression.
    public static let allWritable: [ArchiveFormat] = [
        .zip, .tar, .tarGzip, .tarBzip2, .tarXz, .tarZstd, .tarLz4, .tarLzma,
        ArchiveFormat(.ustar), ArchiveFormat(.gnutar), .cpio, ArchiveFormat(.cpio, compression: .gzip), .sevenZip,
    ]

    /// File name endings and their formats, longest first so that
    /// `.tar.gz` wins over a shorter match: GNU tar's and bsdtar's short
    /// forms (`.taz` is gzip and `.tlz` lzma, as GNU tar and bsdtar read
    /// them), and `.epub`, a zip.
    private static let extensions: [(String, ArchiveFormat)] = [
        (".tar.zstd", .tarZstd), (".tar.gz", .tarGzip), (".tar.bz2", .tarBzip2), (".tar.xz", .tarXz), (".tar.zst", .tarZstd),
        (".tar.lzma", .tarLzma), (".tar.lz4", .tarLz4), (".cpio.gz", ArchiveFormat(.cpio, compression: .gzip)),
        (".cpio.bz2", ArchiveFormat(.cpio, compression: .bzip2)), (".cpio.xz", ArchiveFormat(.cpio, compression: .xz)),
        (".cpio.zst", ArchiveFormat(.cpio, compression: .zstd)),
        (".tbz2", .tarBzip2), (".tzst", .tarZstd), (".epub", .zip),
        (".tgz", .tarGzip), (".taz", .tarGzip), (".tbz", .tarBzip2), (".txz", .tarXz), (".tlz", .tarLzma),
        (".tar", .tar), (".zip", .zip), (".cpio", .cpio), (".7z", .sevenZip),
    ]

    /// The format a file name asks for by its ending (`.zip`, `.tar.zst`,
    /// ...), or `nil` for an ending this library does not write.
    ///
    /// - Parameter name: A file name or path; the ending is compared
    ///   ignoring case.
    public init?(fileExtensionOf name: String) {
        let lowercased = name.lowercased()
        guard let match = Self.extensions.first(where: { lowercased.hasSuffix($0.0) }) else { return nil }
        self = match.1
    }

    /// A format named as on the command line: a container (`zip`, `tar`,
    /// `pax`, `ustar`, `gnutar`, `cpio`, `7z`), optionally followed by a
    /// compression (`tar.zst`, `ustar.gz`, `cpio.xz`), or an ending such
    /// as `tgz`, `txz` or `epub`.
    ///
    /// - Parameter name: The format's name, such as `tar.zst`.
    public init?(name: String) {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard let first = parts.first, let container = Self.containerNames[first] else {
            guard let ending = Self.extensions.first(where: { $0.0 == "." + name }) else { return nil }
            self = ending.1
            return
        }
        var compression = Compression.none
        if parts.count == 2 {
            guard let named = Self.compressionNames[parts[1]], container != .zip, container != .sevenZip else { return nil }
            compression = named
        }
        self.init(container, compression: compression)
    }

    private static let containerNames: [String: Container] = [
        "zip": .zip, "tar": .pax, "pax": .pax, "ustar": .ustar, "gnutar": .gnutar, "cpio": .cpio, "7z": .sevenZip,
    ]
    private static let compressionNames: [String: Compression] = [
        "gz": .gzip, "gzip": .gzip, "bz2": .bzip2, "bzip2": .bzip2, "xz": .xz, "zst": .zstd, "zstd": .zstd, "lz4": .lz4, "lzma": .lzma,
    ]

    /// The usual file name ending for this format.
    public var fileExtension: String {
        let base: String = switch container {
        case .zip: "zip"
        case .pax, .ustar, .gnutar: "tar"
        case .cpio: "cpio"
        case .sevenZip: "7z"
        }
        let suffix: String = switch compression {
        case .none: ""
        case .gzip: ".gz"
        case .bzip2: ".bz2"
        case .xz: ".xz"
        case .zstd: ".zst"
        case .lz4: ".lz4"
        case .lzma: ".lzma"
        }
        return base + suffix
    }

    /// `pax`, `pax+zstd`, `zip`.
    public var description: String {
        compression == .none ? container.rawValue : "\(container.rawValue)+\(compression.rawValue)"
    }

    /// Whether entries keep modification times to the nanosecond.
    public var keepsNanoseconds: Bool { container == .pax }
}
