import FileWrapperKit

/// The pax records libarchive 3.6.2 reads wrongly, kept as the archive
/// stores them: `path` and `linkpath`, which libarchive converts "from
/// UTF-8" to Unicode NFC (an NFD name, as macOS writes them, comes back
/// composed; a name that is not UTF-8, as GNU tar writes raw bytes without
/// `hdrcharset`, is refused with "Pathname can't be converted"), and
/// `mtime`, whose fraction libarchive adds to a negative time instead of
/// taking it away (`-0.5` comes back as 0 s + 500,000,000 ns). No option
/// of libarchive's avoids the conversion: `hdrcharset` applies to ustar
/// names and to pax ones only under `hdrcharset=BINARY`, and `compat-2x`
/// normalizes too.
///
/// It looks at the bytes libarchive is given (a ``DeclaredSizeCheck`` that
/// never refuses) and walks the tar from its first header as libarchive
/// does, header to header by each entry's size, reading each extended
/// header's records. Each entry's records are kept by where its data
/// begins, which is where libarchive stands once it has read the entry's
/// header. At anything whose size libarchive may count otherwise (a GNU
/// sparse or multi-volume header, data after a link or directory, an
/// unknown entry type, a damaged header, bytes libarchive skipped) the
/// walk stops, and the entries after it keep libarchive's names and times.
final class PaxRawRecords: DeclaredSizeCheck {
    /// The raw records of one entry.
    struct Records {
        var path: [UInt8]?
        var linkPath: [UInt8]?
        var modified: (seconds: Int64, nanoseconds: Int32)?
        /// Whether every record was well formed: only then may a warning
        /// about a name be taken back (libarchive warns of both).
        var wellFormed = true
        /// A `size` record, which libarchive takes over the header's.
        var size: Int64?

        /// Whether libarchive's reading of the `mtime` record is `time`:
        /// the same, or, before 1970 with a fraction, the one that adds the
        /// fraction (-1.75 read as -1 s + 750,000,000 ns for -2 s +
        /// 250,000,000 ns).
        func agrees(with time: (seconds: Int64, nanoseconds: Int32)) -> Bool {
            guard let modified else { return false }
            if modified == time { return true }
            return modified.seconds < 0 && time.nanoseconds > 0
                && modified.seconds == time.seconds - 1 && modified.nanoseconds == 1_000_000_000 - time.nanoseconds
        }
    }

    /// libarchive's limit on an extended header's size.
    private static let maxBody: Int64 = 1 << 20

    private enum Want {
        case header
        case body(type: UInt8)
        case done
    }

    private var want = Want.header
    /// Where the bytes wanted begin, how many, and those gathered so far.
    private var wantStart: Int64 = 0
    private var wantCount = Int64(TarBlock.size)
    private var gathered: [UInt8] = []
    /// The records of the extended header read for the next entry.
    private var pending: Records?
    /// Whether libarchive takes the archive for pax here (as ``PlainTarReader`` tracks it).
    private var isPax = false
    /// Records by where their entry's data begins.
    private var byDataStart: [Int64: Records] = [:]

    /// The records of the entry whose data begins at `dataStart`, taken.
    func take(dataStart: Int64) -> Records? {
        byDataStart.removeValue(forKey: dataStart)
    }

    func inspect(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> DeclaredSizeRefusal? {
        var offset = offset
        var bytes = bytes[...]
        while !bytes.isEmpty {
            if case .done = want { return nil }
            let have = wantStart + Int64(gathered.count)
            // Bytes libarchive skipped, unread, or a seek back: the walk cannot follow.
            guard offset <= have else { return stop() }
            let end = offset + Int64(bytes.count)
            guard end > have else { return nil }
            let from = bytes.startIndex + Int(have - offset)
            let take = Int(min(end - have, wantCount - Int64(gathered.count)))
            gathered.append(contentsOf: bytes[from..<(from + take)])
            bytes = bytes[(from + take)...]
            offset = have + Int64(take)
            if Int64(gathered.count) == wantCount { advance() }
        }
        return nil
    }

    private func stop() -> DeclaredSizeRefusal? {
        want = .done
        gathered = []
        return nil
    }

    /// Acts on the bytes wanted, which are all gathered.
    private func advance() {
        let bytes = gathered
        gathered = []
        switch want {
        case .done:
            return
        case .body(let type):
            if type == UInt8(ascii: "x") { pending = Self.records(bytes) }
            expect(.header, at: wantStart + Self.padded(wantCount), count: Int64(TarBlock.size))
        case .header:
            bytes.withUnsafeBytes { header($0, at: wantStart) }
        }
    }

    private func expect(_ next: Want, at start: Int64, count: Int64) {
        want = next
        wantStart = start
        wantCount = count
    }

    /// Follows the header at `start`.
    private func header(_ bytes: UnsafeRawBufferPointer, at start: Int64) {
        let block = TarBlock(bytes)
        guard !block.isZero, block.isValid, let size = block.number(TarBlock.contentSize), size >= 0 else {
            _ = stop()
            return
        }
        let type = block.type
        switch type {
        case UInt8(ascii: "x"), UInt8(ascii: "g"), UInt8(ascii: "L"), UInt8(ascii: "K"):
            guard size <= Self.maxBody, type != UInt8(ascii: "x") || pending == nil else {
                _ = stop()
                return
            }
            if type == UInt8(ascii: "x") { isPax = true }
            expect(.body(type: type), at: start + Int64(TarBlock.size), count: size)
            if size == 0 { advance() }
        case 0, UInt8(ascii: "0"), UInt8(ascii: "7"), UInt8(ascii: "1"), UInt8(ascii: "2"), UInt8(ascii: "3"),
             UInt8(ascii: "4"), UInt8(ascii: "5"), UInt8(ascii: "6"):
            if block.isGNU { isPax = false }
            let records = pending
            pending = nil
            // GNU sparse and multi-volume fields, and sparse pax records: libarchive reads more.
            let gnuExtra = block.hasGNUExtensions
            let dataSize = records?.size ?? size
            let isRegular = type == 0 || type == UInt8(ascii: "0") || type == UInt8(ascii: "7")
            let carriesData = isRegular || (type == UInt8(ascii: "1") && isPax)
            guard !gnuExtra, records?.size == nil || records?.size == size, carriesData || size == 0 else {
                _ = stop()
                return
            }
            let dataStart = start + Int64(TarBlock.size)
            if let records { byDataStart[dataStart] = records }
            expect(.header, at: dataStart + Self.padded(carriesData ? dataSize : 0), count: Int64(TarBlock.size))
        default:
            _ = stop()
        }
    }

    /// The records of an extended header's body; `wellFormed` false when
    /// one is not, or when one makes the entry sparse (the walk then stops
    /// at the entry, whose size libarchive counts otherwise).
    private static func records(_ body: [UInt8]) -> Records {
        let (parsed, wellFormed) = PaxRecord.parse(body)
        var records = Records()
        records.wellFormed = wellFormed
        for (key, value) in parsed {
            if key.elementsEqual("path".utf8) {
                records.path = Array(value)
            } else if key.elementsEqual("linkpath".utf8) {
                records.linkPath = Array(value)
            } else if key.elementsEqual("mtime".utf8) {
                records.modified = PaxRecord.time(value)
            } else if key.elementsEqual("size".utf8) {
                records.size = Int64(decimal: value) ?? -1
            } else if key.starts(with: "GNU.sparse.".utf8) {
                records.size = -1  // sparse: the walk stops here
            }
        }
        return records
    }

    private static func padded(_ size: Int64) -> Int64 {
        size + TarBlock.padding(after: size)
    }
}
