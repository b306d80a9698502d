/// Follows a stream that is being spooled, record by record, to stop one
/// that has stopped looking like a zip or a 7z long before it fills the
/// temporary folder: `(cat head.zip; cat /dev/zero) | wrapinspect dump -`.
///
/// The rule, which no zip or 7z that this reader reads breaks:
/// - a zip is a run of records, each beginning with its signature (local
///   headers, central-directory records, the end records, the data
///   descriptor's and spanning marker's `PK\7\8`); a local header that
///   declares its compressed size (no data descriptor, bit 3; zip64
///   sizes as libarchive reads them) is followed by that many bytes of
///   data, then the next record. Where a record is due, ``zeroRunLimit``
///   zero bytes in a row are refused: no writer pads so (an archive
///   comment or alignment lies inside a record);
/// - the data of a deflated member whose size a data descriptor gives
///   begins with a deflate block header, which is never 5 zero bytes (a
///   stored block's lengths would be 0 and 0, not 0 and 0xFFFF); zeros
///   there, ``deflateZeroLimit`` of them, are refused;
/// - a 7z's signature header gives its length (32 bytes, then the next
///   header's offset and size); after it, ``zeroRunLimit`` zeros are refused.
/// Bytes that are neither (a stored member of unknown length, data
/// between records) end the following: from there, the spool's capacity
/// and the free space of its folder bound it (``ArchiveSpool``).
struct SpoolShape {
    /// The zero bytes in a row, where a zip record is due or after a 7z's
    /// end, that refuse the stream: 16 MiB.
    static let zeroRunLimit: Int64 = 16 << 20
    /// The zero bytes in a row at the start of a deflated member's data
    /// that refuse the stream: 64 KiB, far more than the 12 zero bytes an
    /// empty member's unsigned data descriptor could bring.
    static let deflateZeroLimit: Int64 = 64 << 10

    private enum State {
        /// The first 4 bytes (6 for a 7z), in ``record``, until they tell
        /// a zip or a 7z from anything else (``ArchiveSpool/isNeeded(for:)``).
        case start
        /// A zip record is due, or the 7z has ended: zero bytes so far.
        case due(zeros: Int64)
        /// A zip record, its bytes so far in ``record``.
        case record
        /// A zip member's data or a 7z's body: the bytes left, after which a record is due.
        case data(Int64)
        /// The start of a deflated member's data of unknown length: zero bytes so far.
        case deflateStart(zeros: Int64)
        /// A 7z's signature header, its bytes so far in ``record``.
        case sevenZipHeader
        /// Nothing more is checked.
        case untracked

        /// `count` bytes of data, then a record is due.
        static func data(then count: Int64) -> State {
            count == 0 ? .due(zeros: 0) : .data(count)
        }
    }

    private var state = State.start
    private var record: [UInt8] = []
    /// Whether the stream is a zip, not a 7z.
    private var isZip = true
    /// The offset of the next byte, counted from the stream's start.
    private var offset: Int64 = 0
    /// Where the run of zeros being counted began.
    private var runStart: Int64 = 0
    private let name: String

    /// For the stream that `name` names in errors.
    init(name: String) {
        self.name = name
    }

    /// Looks at the stream's next bytes; throws when they refuse it.
    mutating func take(_ bytes: UnsafeRawBufferPointer) throws(ArchiveError) {
        var index = 0
        while index < bytes.count {
            let count = try step(UnsafeRawBufferPointer(rebasing: bytes[index...]))
            index += count
            offset += Int64(count)
        }
    }

    /// Takes what it can of `bytes` (at least one) in the current state: how many.
    private mutating func step(_ bytes: UnsafeRawBufferPointer) throws(ArchiveError) -> Int {
        switch state {
        case .start, .record, .sevenZipHeader:
            let count = min(wanted - record.count, bytes.count)
            record += bytes[..<count]
            if record.count == wanted { try recordEnded() }
            return count
        case .due(let zeros):
            let place = isZip ? "where a zip's next record should begin" : "after the end of the 7z"
            let (run, total) = try zeroRun(in: bytes, after: zeros, limit: Self.zeroRunLimit) {
                "\(Self.zeroRunLimit >> 20) MiB of zero bytes from offset \($0), \(place)"
            }
            if run < bytes.count {
                record = []
                state = isZip ? .record : .untracked
            } else {
                state = .due(zeros: total)
            }
            return run
        case .data(let left):
            let count = Int(min(left, Int64(bytes.count)))
            state = .data(then: left - Int64(count))
            return count
        case .deflateStart(let zeros):
            let (run, total) = try zeroRun(in: bytes, after: zeros, limit: Self.deflateZeroLimit) {
                "\(Self.deflateZeroLimit >> 10) KiB of zero bytes from offset \($0), where a deflated member's data should begin with a block header"
            }
            state = run < bytes.count ? .untracked : .deflateStart(zeros: total)
            return max(run, 1)
        case .untracked:
            return bytes.count
        }
    }

    /// The zero bytes that lead `bytes`, and the run they make after
    /// `zeros` before them; throws, with `what` of the run's start, once
    /// the run reaches `limit`.
    private mutating func zeroRun(
        in bytes: UnsafeRawBufferPointer, after zeros: Int64, limit: Int64, _ what: (Int64) -> String
    ) throws(ArchiveError) -> (run: Int, total: Int64) {
        if zeros == 0 { runStart = offset }
        let run = bytes.firstIndex { $0 != 0 } ?? bytes.count
        let total = zeros + Int64(run)
        guard total < limit else { throw refusal(what(runStart)) }
        return (run, total)
    }

    /// How many bytes ``record`` must hold for what its bytes so far say
    /// comes next: the whole record once its fixed fields tell its length.
    private var wanted: Int {
        switch state {
        case .start: return record.count < 4 ? 4 : ArchiveSpool.sevenZipSignature.count
        case .sevenZipHeader: return 32
        default: break
        }
        guard record.count >= 4 else { return 4 }
        let fields = LittleEndianBytes(bytes: record)
        return switch fields.u32(0) {
        case ZipLocalHeader.signature: ZipLocalHeader.length(decoding: fields) ?? ZipLocalHeader.fixedLength
        case ZipCentralRecord.signature: ZipCentralRecord.length(decoding: fields) ?? ZipCentralRecord.fixedLength
        case ZipDirectoryEnd.signature:
            record.count >= ZipDirectoryEnd.fixedLength ? ZipDirectoryEnd.fixedLength + fields.u16(20) : ZipDirectoryEnd.fixedLength
        case ZipDirectoryEnd.locatorSignature: 20
        // Its size (8 bytes at 4) counts what follows, passed over as data.
        case ZipDirectoryEnd.zip64Signature: 12
        // A spanning marker, or a descriptor whose sizes are 4 or 8 bytes each: what follows tells.
        default: 4
        }
    }

    /// Moves on from a whole ``record``.
    private mutating func recordEnded() throws(ArchiveError) {
        let fields = LittleEndianBytes(bytes: record)
        switch state {
        case .start:
            if record.starts(with: ArchiveSpool.sevenZipSignature) {
                isZip = false
                state = .sevenZipHeader
            } else if ArchiveSpool.isNeeded(for: record) {
                state = .record
                if record.count == wanted { try recordEnded() }
            } else if record.count == 4, ArchiveSpool.sevenZipSignature.starts(with: record) {
                return
            } else {
                state = .untracked
            }
            return
        case .sevenZipHeader:
            // The next header's offset and size, after the 32 bytes; a body
            // past Int64 is the capacity's to refuse.
            let (body, overflow) = fields.u64(12).addingReportingOverflow(fields.u64(20))
            state = overflow || body > UInt64(Int64.max) ? .untracked : .data(then: Int64(body))
            return
        default:
            break
        }
        switch fields.u32(0) {
        case ZipLocalHeader.signature:
            break
        case ZipCentralRecord.signature, ZipDirectoryEnd.signature, ZipDirectoryEnd.locatorSignature, ZipDataDescriptor.signature:
            state = .due(zeros: 0)
            return
        case ZipDirectoryEnd.zip64Signature:
            let size = fields.u64(4)
            state = size > UInt64(Int64.max) ? .untracked : .data(then: Int64(size))
            return
        default:
            state = .untracked
            return
        }
        guard let header = ZipLocalHeader(decoding: fields) else {
            state = .untracked
            return
        }
        // Sizes in a data descriptor, or the local header's fields masked.
        if !header.flags.isDisjoint(with: [.dataDescriptor, .maskedLocalHeader]) {
            state = header.method == ZipCompressionMethod.deflated.rawValue && !header.flags.contains(.encrypted) ? .deflateStart(zeros: 0) : .untracked
            return
        }
        let sizes = ZipExtraFields(header.extra).resolvingZip64([UInt64(header.size), UInt64(header.compressedSize)])
        guard let compressed = sizes?[1], compressed != 0xFFFF_FFFF, compressed <= UInt64(Int64.max) else {
            state = .untracked
            return
        }
        state = .data(then: Int64(compressed))
    }

    private func refusal(_ what: String) -> ArchiveError {
        ArchiveError(.corrupt, archive: name, message: "the stream stopped looking like a zip or 7z: \(what); "
                     + "it is refused there rather than spooled on (read the archive from a file)")
    }
}
