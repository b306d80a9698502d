import CArchive

/// The archive formats a reader accepts, and how it finds the compression
/// around them.
///
/// ``standard``, the default, reads tar (ustar, pax, GNU, Solaris, star),
/// cpio, zip and 7z, and an empty file as an empty archive, inside one
/// compression stream recognised by its first bytes: gzip, bzip2, xz,
/// lzma, zstd, lz4, compress (`.Z`) or lzip (libarchive may find bzip2,
/// lz4 or compress again inside the same one, never another), decoded
/// within ``ArchiveReadLimits/maxMemory`` (`DeclaredSizes`). That is what
/// a document library needs, and it reads each of the 488 archives of the interop
/// corpus (`CorpusTests`) to its end or refuses it, in under 0.2 seconds
/// and 5 MB above the process's own memory.
///
/// The rest is left out because libarchive 3.6.2 could not be bounded on
/// it, as measured on that corpus; nothing outside libarchive can stop it,
/// since it spins or allocates without asking for input:
/// - Detecting compression itself: libarchive stacks up to 25 filters,
///   and on a 293-byte gzip whose every layer inflates to a bigger gzip it
///   grew memory by 130 MB a second until allocation failed. It also brings
///   uu, rpm, and lzop, grzip and lrzip, which it runs as external programs.
/// - ``iso9660``: a Rock Ridge continuation loop grew memory by 250 MB a
///   second until libarchive ended the whole process ("Out of memory").
/// - ``xar``: a table of contents with a doubled link spins forever.
/// - ``rar``: a 4-byte entry made it allocate and fill 1 GB.
/// - ``rar5``, ``cab``: reading on after an error crashed (SIGSEGV), and
///   rar5 repeats an error without moving on (bsdtar loops on it); safe only
///   while every caller stops at the first error, as this library does.
/// - ``lha``, ``ar``, ``warc``, ``mtree``: not document formats, so their
///   code is better not exposed; the mtree reader also reads the local
///   files that a manifest names.
///
/// Each can be added (`[.standard, .iso9660]`); ``all`` is everything
/// libarchive reads, detected from the bytes by libarchive as bsdtar does,
/// for input that is trusted or read in a process with its own limits
/// (only an xz, lzma, lzip or zstd stream around the whole input is then
/// decoded within the memory limit, and the declared sizes of what
/// libarchive decodes itself are not checked).
/// When the enabled formats find nothing and a left-out one would, the
/// error names it and the option that adds it.
public struct ArchiveReadFormats: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// tar in all its dialects: ustar, pax, GNU (sparse files, long names), Solaris, star.
    public static let tar = ArchiveReadFormats(rawValue: 1 << 0)
    /// cpio: binary, odc, newc, crc, afio.
    public static let cpio = ArchiveReadFormats(rawValue: 1 << 1)
    /// zip, from its central directory when the input can seek.
    public static let zip = ArchiveReadFormats(rawValue: 1 << 2)
    /// 7-Zip.
    public static let sevenZip = ArchiveReadFormats(rawValue: 1 << 3)
    /// A file of no bytes, read as an archive with no entries.
    public static let empty = ArchiveReadFormats(rawValue: 1 << 4)
    /// Unix `ar` (static libraries, `.deb` packages).
    public static let ar = ArchiveReadFormats(rawValue: 1 << 5)
    /// ISO 9660 CD images with Joliet, Rock Ridge and zisofs.
    public static let iso9660 = ArchiveReadFormats(rawValue: 1 << 6)
    /// mtree manifests; the reader takes contents from the files they name.
    public static let mtree = ArchiveReadFormats(rawValue: 1 << 7)
    /// xar (macOS installer packages).
    public static let xar = ArchiveReadFormats(rawValue: 1 << 8)
    /// RAR up to version 4.
    public static let rar = ArchiveReadFormats(rawValue: 1 << 9)
    /// RAR 5.
    public static let rar5 = ArchiveReadFormats(rawValue: 1 << 10)
    /// Microsoft Cabinet.
    public static let cab = ArchiveReadFormats(rawValue: 1 << 11)
    /// LHA/LZH.
    public static let lha = ArchiveReadFormats(rawValue: 1 << 12)
    /// WARC web archives.
    public static let warc = ArchiveReadFormats(rawValue: 1 << 13)
    /// Every compression filter libarchive has, detected and stacked by
    /// libarchive itself (up to 25 deep), instead of one stream of a known
    /// compression recognised by its magic bytes.
    public static let libarchiveFilterDetection = ArchiveReadFormats(rawValue: 1 << 31)

    /// What a document library needs, within bounded memory and time.
    public static let standard: ArchiveReadFormats = [.tar, .cpio, .zip, .sevenZip, .empty]
    /// Everything libarchive reads, detected by libarchive from the bytes.
    public static let all: ArchiveReadFormats = [
        .standard, .ar, .iso9660, .mtree, .xar, .rar, .rar5, .cab, .lha, .warc, .libarchiveFilterDetection,
    ]
}

extension ArchiveReadFormats {
    /// A format or filter that a reader leaves out, for the error that says so.
    struct LeftOut {
        /// Its name, such as `RAR 5`.
        var name: String
        /// The option that adds it, such as `rar5`.
        var option: String
    }

    /// Each format with its name for errors and its libarchive registration.
    private static let registrations: [(format: ArchiveReadFormats, name: LeftOut, register: @Sendable (OpaquePointer) -> CInt)] = [
        (.tar, LeftOut(name: "tar", option: "tar"), archive_read_support_format_tar),
        (.cpio, LeftOut(name: "cpio", option: "cpio"), archive_read_support_format_cpio),
        (.zip, LeftOut(name: "zip", option: "zip"), archive_read_support_format_zip),
        (.sevenZip, LeftOut(name: "7z", option: "sevenZip"), archive_read_support_format_7zip),
        (.empty, LeftOut(name: "empty", option: "empty"), archive_read_support_format_empty),
        (.iso9660, LeftOut(name: "ISO 9660", option: "iso9660"), archive_read_support_format_iso9660),
        (.rar5, LeftOut(name: "RAR 5", option: "rar5"), archive_read_support_format_rar5),
        (.rar, LeftOut(name: "RAR", option: "rar"), archive_read_support_format_rar),
        (.xar, LeftOut(name: "xar", option: "xar"), archive_read_support_format_xar),
        (.cab, LeftOut(name: "Cabinet", option: "cab"), archive_read_support_format_cab),
        (.lha, LeftOut(name: "LHA", option: "lha"), archive_read_support_format_lha),
        (.ar, LeftOut(name: "ar", option: "ar"), archive_read_support_format_ar),
        (.warc, LeftOut(name: "WARC", option: "warc"), archive_read_support_format_warc),
        (.mtree, LeftOut(name: "mtree", option: "mtree"), archive_read_support_format_mtree),
    ]

    /// The filters that only libarchive's own detection reads, by the bytes
    /// they start with (libarchive searches further for uuencode's `begin`).
    private static let leftOutFilters: [(name: String, magic: [UInt8])] = [
        ("RPM", [0xED, 0xAB, 0xEE, 0xDB]),
        ("uuencoded", Array("begin ".utf8)),
        ("uuencoded", Array("begin-base64 ".utf8)),
        ("lzop", [0x89, 0x4C, 0x5A, 0x4F, 0x00, 0x0D, 0x0A, 0x1A, 0x0A]),
        ("grzip", Array("GRZipII".utf8) + [0x00, 0x02, 0x04, 0x3A, 0x29]),
        ("lrzip", Array("LRZI".utf8)),
    ]

    /// Whether `head` starts a filter that only libarchive's own detection reads.
    static func startsLeftOutFilter(_ head: [UInt8]) -> Bool {
        leftOutFilters.contains { head.starts(with: $0.magic) }
    }

    /// A compression recognised by its first bytes, as libarchive's bidders
    /// check them (`archive_read_support_filter_*.c`); the cases run from
    /// the strongest bid to the weakest. ``DeclaredSizes`` decodes gzip, xz,
    /// lzma, lzip and zstd itself (the last four within the memory limit),
    /// and has libarchive decode the others (``libarchiveFilter``).
    enum Compression: CaseIterable {
        case xz, bzip2, gzip, zstd, lz4, lzip, compress, lzma

        /// Whether `head`, an input's first bytes, starts a stream of it.
        func matches(_ head: [UInt8]) -> Bool {
            switch self {
            case .xz:
                return head.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00])
            case .bzip2:
                return head.count >= 10 && head.starts(with: Array("BZh".utf8)) && (0x31...0x39).contains(head[3])
                    && ([[0x31, 0x41, 0x59, 0x26, 0x53, 0x59], [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]] as [[UInt8]]).contains(Array(head[4..<10]))
            case .gzip:
                return head.count >= 4 && head.starts(with: [0x1F, 0x8B, 0x08]) && head[3] & 0xE0 == 0
            case .zstd:
                // A frame, or a skippable frame (which lz4 shares, and libarchive gives to zstd).
                guard let magic = ArchiveReadFormats.littleEndian32(head, at: 0) else { return false }
                return magic == 0xFD2F_B528 || magic & 0xFFFF_FFF0 == 0x184D_2A50
            case .lz4:
                guard let magic = ArchiveReadFormats.littleEndian32(head, at: 0) else { return false }
                if magic == 0x184C_2102 { return true }  // the legacy frame
                // A frame: version 01, reserved bits 0, blocks of 64 KiB or more.
                return magic == 0x184D_2204 && head.count >= 7 && head[4] >> 6 == 1 && head[4] & 0x02 == 0
                    && (head[5] & 0x70) >> 4 >= 4 && head[5] & ~0x70 == 0
            case .lzip:
                return head.count >= 6 && head.starts(with: Array("LZIP".utf8)) && head[4] <= 1 && (12...27).contains(head[5] & 0x1F)
            case .compress:
                return head.count >= 3 && head.starts(with: [0x1F, 0x9D]) && head[2] & 0x60 == 0
            case .lzma:
                return ArchiveReadFormats.isLZMAAlone(head)
            }
        }

        /// How libarchive decodes it, with memory of a fixed size, to add to a
        /// reader; nil for gzip, which ``GzipDecoder`` inflates (with ISA-L
        /// where the build has it), and for xz, lzma, lzip and zstd, whose
        /// dictionary or window the stream declares, and which
        /// ``DeclaredSizes`` decodes within the memory limit instead.
        ///
        /// Each is registered alone: libarchive may stack the same
        /// compression again, but their bidders look at 14 bytes at most, so
        /// 26 levels cost 7 MB. (3.6.2's `archive_read_append_filter`
        /// crashes on compress and refuses lz4.) Its gzip bidder, by
        /// contrast, reads ahead to the end of an embedded file name, so a
        /// 293-byte gzip that inflates to a bigger gzip, layer after layer,
        /// made libarchive copy ever larger buffers (130 MB more every
        /// second): one layer is decoded, and what it holds is read as it is.
        var libarchiveFilter: (@Sendable (OpaquePointer) -> CInt)? {
            switch self {
            case .bzip2: archive_read_support_filter_bzip2
            case .lz4: archive_read_support_filter_lz4
            case .compress: archive_read_support_filter_compress
            case .gzip, .xz, .zstd, .lzip, .lzma: nil
            }
        }

        /// The compression `head` starts, the strongest bid first.
        static func starting(_ head: [UInt8]) -> Compression? {
            allCases.first { $0.matches(head) }
        }
    }

    /// libarchive's test for the headerless `.lzma` format: a properties
    /// byte and a dictionary size that an lzma tool writes.
    private static func isLZMAAlone(_ head: [UInt8]) -> Bool {
        guard head.count >= 14, head[0] <= (4 * 5 + 4) * 9 + 8, let dictionary = littleEndian32(head, at: 1) else { return false }
        if dictionary.nonzeroBitCount == 1 && (12...27).contains(dictionary.trailingZeroBitCount) {
            return true
        }
        // Shrunk by whole MiB when the writer was short of memory.
        let unknownSize = head[5..<13].allSatisfy { $0 == 0xFF }
        return head[0] == 0x5D && unknownSize && (0x0030_0000...0x03F0_0000).contains(dictionary) && dictionary & 0xF_FFFF == 0
    }

    private static func littleEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard bytes.count >= offset + 4 else { return nil }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    /// How many leading bytes ``configure(_:head:)`` looks at.
    static let headLength = 64

    /// Whether a reader with these formats reads an input starting with
    /// `head` (its first ``headLength`` bytes) as it is, without a filter
    /// for a compression.
    func readsUnfiltered(_ head: [UInt8]) -> Bool {
        !contains(.libarchiveFilterDetection) && Compression.starting(head) == nil
    }

    /// Registers the formats, with ``libarchiveFilterDetection`` all of
    /// libarchive's filters too; a compression recognised by its first bytes
    /// is decoded before libarchive reads (``DeclaredSizes``). 7z only over
    /// an input that can `seekable`: libarchive reads a 7z by seeking to its
    /// header at the end, and over a stream would at most parse a header
    /// it then could not use.
    func configure(_ archive: OpaquePointer, seekable: Bool) -> CInt {
        for registration in Self.registrations where contains(registration.format) {
            guard seekable || registration.format != .sevenZip else { continue }
            _ = registration.register(archive)
        }
        if contains(.libarchiveFilterDetection) {
            return archive_read_support_filter_all(archive)
        }
        return ARCHIVE_OK
    }

    /// The filter or format left out of `self` that `source`'s input is in,
    /// to say so when the enabled formats found nothing: a filter by its
    /// first bytes, a format by libarchive's bidding on the input read again
    /// from its start (no entry is read). `nil` when none matches, or when
    /// libarchive detects the filters (its detection is what is unbounded).
    func leftOut(in source: ArchiveReadSource) -> LeftOut? {
        guard !contains(.libarchiveFilterDetection) else { return nil }
        if let filter = Self.leftOutFilters.first(where: { source.head.starts(with: $0.magic) }) {
            return LeftOut(name: filter.name, option: "libarchiveFilterDetection")
        }
        for registration in Self.registrations where !contains(registration.format) {
            // libarchive's mtree bidder also takes plain text whose lines
            // look like paths; only the signature makes a file an mtree.
            if registration.format == .mtree, !source.head.starts(with: Array("#mtree".utf8)) { continue }
            guard let input = source.rewound(), let probe = archive_read_new() else { return nil }
            // The input lives until libarchive, which calls back into it, is freed.
            let recognised = withExtendedLifetime(input) {
                defer { archive_read_free(probe) }
                return registration.format.configure(probe, seekable: !input.isSequential) == ARCHIVE_OK && input.open(probe) == ARCHIVE_OK
            }
            if recognised { return registration.name }
        }
        return nil
    }
}
