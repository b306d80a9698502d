/// Rewrites the MS-DOS date and time of every zip header to UTC as
/// libarchive's output streams past, so that a zip's bytes do not depend on
/// the time zone of the process that wrote it.
///
/// libarchive 3.6.2 fills these fields with `localtime`. Its extended
/// timestamp (the 0x5455 "UT" extra field) holds the Unix time and is left
/// as it is. Changing `TZ` around the call would change it for the whole
/// process, so the fields are rewritten here instead:
/// - a local header's 4 bytes are at offset 10 (time, then date, each
///   little-endian); the handle gives the header's absolute offset
///   (``localHeader(at:modified:)``) before libarchive writes it;
/// - a central directory record's 4 bytes are at offset 12; the handle gives
///   the directory's offset (``centralDirectory(at:)``) and the records are
///   walked from there by their name, extra and comment lengths until the
///   end-of-directory record. Record *i* belongs to the *i*-th local header,
///   as libarchive writes them in the same order.
///
/// Headers may be split across writes at any byte. Every signature is
/// checked, so a layout other than the one expected fails the archive
/// instead of corrupting it.
final class ZipUTCTimeRewriter {
    private let archive: String
    private let output: (UnsafeRawBufferPointer) throws -> Void
    /// The absolute offset of the next byte to arrive.
    private var position: Int64 = 0
    /// The UTC date and time of each entry, in the order written.
    private var entryTimes: [UInt32] = []
    /// Central directory records found so far.
    private var centralRecords = 0
    private var sawEndOfDirectory = false
    /// Headers whose start is known and whose first bytes have not all
    /// passed yet, by offset.
    private var pending: [Header] = []

    private struct Header {
        var isCentral: Bool
        var offset: Int64
        /// For a central directory record, which entry it would be.
        var entry: Int
        /// The header's first bytes as libarchive wrote them, gathered
        /// across writes.
        var bytes: [UInt8] = []

        /// Local: the signature and the date and time. Central: the fixed
        /// part through the comment length, enough to find the next record.
        var span: Int { isCentral ? 34 : 14 }
        var timeOffset: Int64 { isCentral ? 12 : 10 }
    }

    private static let localSignature: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
    private static let centralSignature: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
    /// End of central directory, and the zip64 one that precedes it in
    /// large archives.
    private static let endSignatures: [[UInt8]] = [[0x50, 0x4B, 0x05, 0x06], [0x50, 0x4B, 0x06, 0x06]]

    /// Passes the rewritten bytes on to `output`; `archive` names the
    /// archive in errors.
    init(archive: String, output: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.archive = archive
        self.output = output
    }

    /// Announces that the next local header starts at `offset`, for an
    /// entry modified at `modified` (seconds since 1970 UTC).
    func localHeader(at offset: Int64, modified: Int64) throws {
        try expect(offset)
        pending.append(Header(isCentral: false, offset: offset, entry: entryTimes.count))
        entryTimes.append(Self.dosDateTime(modified))
    }

    /// Announces that the central directory starts at `offset`.
    func centralDirectory(at offset: Int64) throws {
        try expect(offset)
        pending.append(Header(isCentral: true, offset: offset, entry: 0))
    }

    /// Checks, once the archive is closed, that the whole central directory
    /// went through, one record per entry.
    func finish() throws {
        guard sawEndOfDirectory, pending.isEmpty else {
            throw layoutError("the central directory ended early")
        }
    }

    /// Takes the next bytes of the archive, rewrites the date and time
    /// fields among them and passes them on.
    func write(_ chunk: UnsafeRawBufferPointer) throws {
        let start = position
        let end = start + Int64(chunk.count)
        var patched: [UInt8]?
        var index = 0
        while index < pending.count, pending[index].offset < end {
            var header = pending[index]
            // Gather the header's first bytes that are in this chunk.
            let from = max(header.offset + Int64(header.bytes.count), start)
            let to = min(header.offset + Int64(header.span), end)
            if from < to {
                header.bytes += chunk[Int(from - start)..<Int(to - start)]
            }
            // The signature always arrives before the time field does.
            if header.bytes.count >= 4 {
                let signature = Array(header.bytes[0..<4])
                if header.isCentral, Self.endSignatures.contains(signature) {
                    guard header.entry == entryTimes.count else {
                        throw layoutError("the central directory has \(header.entry) records for \(entryTimes.count) entries")
                    }
                    sawEndOfDirectory = true
                    pending.remove(at: index)
                    continue
                }
                guard signature == (header.isCentral ? Self.centralSignature : Self.localSignature),
                      header.entry < entryTimes.count
                else {
                    throw layoutError("no \(header.isCentral ? "central directory record" : "local header") at offset \(header.offset)")
                }
                // Overwrite the bytes of the time field that are in this chunk.
                let time = entryTimes[header.entry]
                for byte in 0..<4 {
                    let at = header.offset + header.timeOffset + Int64(byte)
                    guard at >= start, at < end else { continue }
                    if patched == nil { patched = Array(chunk) }
                    patched?[Int(at - start)] = UInt8(truncatingIfNeeded: time >> (8 * byte))
                }
            }
            guard header.bytes.count == header.span else {
                pending[index] = header
                index += 1
                continue
            }
            pending.remove(at: index)
            if header.isCentral {
                // The next record (or the end record) follows this one's
                // 46 fixed bytes, name, extra field and comment.
                let variable = [28, 30, 32].map { Int64(header.bytes[$0]) | Int64(header.bytes[$0 + 1]) << 8 }.reduce(0, +)
                pending.insert(Header(isCentral: true, offset: header.offset + 46 + variable, entry: header.entry + 1), at: index)
            }
        }
        position = end
        if let patched {
            try patched.withUnsafeBytes { try output($0) }
        } else {
            try output(chunk)
        }
    }

    /// A header must be announced before any of its bytes arrive, and in
    /// order.
    private func expect(_ offset: Int64) throws {
        guard offset >= position, offset >= pending.last?.offset ?? 0 else {
            throw layoutError("a header at offset \(offset) was announced too late")
        }
    }

    private func layoutError(_ detail: String) -> ArchiveError {
        ArchiveError(.libarchive, archive: archive, message: "unexpected zip layout from libarchive: \(detail)")
    }

    /// The MS-DOS date (high 16 bits) and time (low 16 bits) of `seconds`
    /// in UTC, with two-second resolution. Like libarchive, a time before
    /// 1980 becomes 1980-01-01 00:00:00 and one after 2107 becomes
    /// 2107-12-31 23:59:58, the range the fields can hold. Computed here
    /// rather than with `gmtime_r`, which reads `TZ` and under a `right/`
    /// zone counts leap seconds.
    static func dosDateTime(_ seconds: Int64) -> UInt32 {
        guard seconds >= 315_532_800 else { return 0x0021_0000 }  // 1980-01-01 00:00:00 UTC
        guard seconds < 4_354_819_200 else { return 0xFF9F_BF7D }  // 2108-01-01 00:00:00 UTC
        let days = seconds / 86400
        let secondOfDay = seconds % 86400
        // Days since 1970-01-01 to a proleptic Gregorian date (Howard
        // Hinnant's civil_from_days, for non-negative days).
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        let date = (year - 1980) << 9 | month << 5 | day
        let time = (secondOfDay / 3600) << 11 | (secondOfDay / 60 % 60) << 5 | (secondOfDay % 60) / 2
        return UInt32(date << 16 | time)
    }
}
