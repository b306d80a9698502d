import CArchive
import CFileSystem

/// Holds what an archive declares to ``ArchiveReadLimits/maxMemory`` before
/// libarchive allocates it. libarchive 3.6.2 sets no limit of its own where
/// a size declared in the archive becomes an allocation:
/// - the dictionary of an xz, lzma or lzip stream (libarchive gives
///   liblzma a limit of `UINT64_MAX`) and the window of a zstd stream
///   (zstd's default of 128 MiB, whatever the budget): these are decoded
///   here instead, by liblzma and libzstd
///   within the limit (``LZMADecoder``, ``ZstdDecoder``); the other
///   compressions need fixed memory: gzip is inflated here too
///   (``GzipDecoder``, on ISA-L where the build has it), the rest decoded
///   by libarchive in a handle of their own (``LibArchiveFilter``), so that
///   the checks below see the decoded bytes;
/// - the name of a cpio newc entry, read whole however long it is declared
///   (``CpioNameCheck``);
/// - the dictionary of an LZMA or xz zip member, the model of a PPMd one
///   and the window of a zstd one (``ZipMethodCheck``);
/// - a 7z header's size, its counts, and the dictionary or model of every
///   coder it lists (``SevenZipHeaderCheck``).
///
/// libarchive bounds the rest itself: tar's long names and pax headers
/// (1 MiB), a cpio symlink's target (1 MiB) and the names of the other
/// cpio variants (256 KiB), zip names (64 KiB), bzip2 blocks (900 KiB), lz4
/// blocks (4 MiB), deflate windows (32 KiB). With
/// ``ArchiveReadFormats/libarchiveFilterDetection`` (input that is
/// trusted), libarchive detects the compressions inside the first itself
/// (and all of them inside a wrapper only it reads), and what it decodes
/// there is not held to the limit.
enum DeclaredSizes {
    /// The source that libarchive reads for `source`: what its compression
    /// decodes to, if it starts with one, with the checks that the bytes
    /// call for; a 7z header is checked at once.
    static func prepare(_ source: ArchiveReadSource, formats: ArchiveReadFormats, memoryLimit: Int64) throws -> ArchiveReadSource {
        let budget = MemoryBudget(bytes: memoryLimit, archive: source.name)
        let decoded = try decoding(source, formats: formats, budget: budget)
        let head = decoded.head
        if formats.contains(.cpio), CpioNameCheck.isNewc(head) {
            decoded.checks.append(CpioNameCheck(budget: budget))
        }
        if formats.contains(.zip), ZipMethodCheck.mayBeZip(decoded) {
            decoded.checks.append(ZipMethodCheck(budget: budget))
        }
        if formats.contains(.sevenZip), SevenZipHeaderCheck.mayBeSevenZip(head) {
            decoded.sevenZipNames = try SevenZipHeaderCheck.check(decoded, budget: budget)
        }
        return decoded
    }

    /// `source`, or a source of what its compression decodes to: xz, lzma,
    /// lzip and zstd decoded within the limit, gzip by ``GzipDecoder``, the
    /// others by libarchive in a handle of its own; with ``ArchiveReadFormats/libarchiveFilterDetection``,
    /// a wrapper only libarchive detects (uuencode, lzop...) too, with every
    /// filter it stacks inside. Either way the format reader gets the bytes
    /// unfiltered, and so names are read as stored (``StoredName``).
    private static func decoding(_ source: ArchiveReadSource, formats: ArchiveReadFormats, budget: MemoryBudget) throws -> ArchiveReadSource {
        let decoder: any CompressionDecoder
        switch ArchiveReadFormats.Compression.starting(source.head) {
        case nil:
            guard formats.contains(.libarchiveFilterDetection), ArchiveReadFormats.startsLeftOutFilter(source.head) else { return source }
            decoder = try LibArchiveFilter(input: source, filter: archive_read_support_filter_all)
        case .xz:
            decoder = try LZMADecoder(input: source, container: .xz, budget: budget)
        case .lzma:
            decoder = try LZMADecoder(input: source, container: .lzma, budget: budget)
        case .lzip:
            decoder = try LZMADecoder(input: source, container: .lzip, budget: budget)
        case .zstd:
            decoder = try ZstdDecoder(input: source, budget: budget)
        case .gzip:
            decoder = try GzipDecoder(input: source)
        case let compression?:
            guard let filter = compression.libarchiveFilter else { return source }
            decoder = try LibArchiveFilter(input: source, filter: filter)
        }
        let decoded = ArchiveReadSource(decoding: decoder, name: source.name)
        if let error = decoded.error { throw error }
        return decoded
    }
}

/// The memory limit of one read, and the error for a declared size over it.
struct MemoryBudget {
    let bytes: Int64
    /// The archive's name for errors.
    let archive: String

    /// Whether `needed` bytes fit.
    func allows(_ needed: UInt64) -> Bool {
        needed <= UInt64(max(bytes, 0))
    }

    /// The error for what `sentence` says needs too much memory, such as
    /// `"decoding the xz stream needs 1073803264 bytes of memory for its
    /// dictionary"`.
    func refusal(_ sentence: String) -> ArchiveError {
        ArchiveError(.limitExceeded, archive: archive, message: "\(sentence), more than the limit of \(bytes) bytes", limit: .maxMemory)
    }
}

/// Decodes a compression stream that an archive is wrapped in, for
/// libarchive to read as if it were not.
protocol CompressionDecoder: AnyObject {
    /// Decodes the next bytes into `buffer`: how many (0 at the end), or -1
    /// after setting ``error``.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// Why decoding failed.
    var error: ArchiveError? { get }
    /// Bytes of the archive itself read so far, for the compression-ratio limit.
    var archiveBytesRead: Int64 { get }
    /// The same decoding of the input read again from its start; nil when
    /// the input is a stream.
    func rewound() -> (any CompressionDecoder)?
}

/// Looks at the bytes an archive's format reader is about to get, in order
/// and across seeks, for a header that declares a size over the memory limit.
protocol DeclaredSizeCheck: AnyObject {
    /// Looks at `bytes`, the input's from `offset` on; the refusal, and where
    /// the header that declares the size begins, if there is one.
    func inspect(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> DeclaredSizeRefusal?
}

/// A declared size over the limit, and where its header begins in the input.
struct DeclaredSizeRefusal {
    var error: ArchiveError
    var offset: Int64
}

extension UnsafeRawBufferPointer {
    /// Where `pattern` next occurs at or after `start` (glibc's `memmem`).
    func firstIndex(of pattern: [UInt8], from start: Int = 0) -> Int? {
        guard let base = baseAddress, start < count,
              let found = cfs_memmem(base + start, count - start, pattern, pattern.count)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
