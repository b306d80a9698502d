import CCRC32
import FileWrapperKit

/// A zip's central directory held against its local headers, name by name.
///
/// libarchive names a member from its local header, taking the name from
/// an Info-ZIP Unicode Path field (0x7075) there if it has one, while
/// unzip, Python's zipfile and most viewers list the central directory
/// (unzip also taking its Unicode Path field). A zip whose two disagree
/// shows a reviewer one name and unpacks another, so every reader refuses
/// it, naming both. The names compared are those the two headers give:
/// each one's Unicode Path where it has one that holds (version 1, the
/// CRC-32 of the name's bytes, as libarchive checks them), else its name's
/// bytes, read as UTF-8 where the header says so (flag bit 11) and as code
/// page 437 otherwise, as Python's zipfile reads them. A header with two
/// Unicode Path fields, of which libarchive takes the first and unzip the
/// last, is refused too.
///
/// The directory is read as libarchive reads it (``ZipCentralDirectory``),
/// and every member's local header is read once. What is kept is where the data of
/// each checked member begins, so that a member whose data libarchive
/// finds anywhere else (after a local header the directory does not list)
/// is refused as well, and what the two headers record of the member
/// (``Member``), which libarchive reads otherwise. A zip whose members
/// overlap each other or the directory is refused (``ZipMemberExtents``).
struct ZipCentralNames {
    /// What a checked member's headers record.
    struct Member {
        /// The name as its local header stores it (``Name/stored``).
        var name: [UInt8]
        /// Permission bits (with set-user-ID, set-group-ID and sticky);
        /// nil when the zip does not record them (``ZipRecordedMetadata``).
        var permissions: UInt16?
        /// nil when only an MS-DOS date and time record it (``ZipRecordedMetadata``).
        var modified: FileTimestamp?
        /// The expanded size the central directory gives.
        var size: UInt64
        /// Where the member's data lies in the archive, and how it is
        /// compressed (0 stored, 8 deflated, as the central directory says).
        var data: (start: Int64, compressedSize: UInt64, method: UInt16, isEncrypted: Bool)

        /// The member's contents as stored, for a symbolic link's target,
        /// which libarchive gives in NFC: read from `source` when they are
        /// stored or deflated, unencrypted and at most `limit` bytes
        /// either way; nil otherwise or when they do not read back whole.
        func smallContents(in source: ArchiveReadSource, limit: Int = 64 * 1024) -> [UInt8]? {
            guard !data.isEncrypted, size <= UInt64(limit), data.compressedSize <= UInt64(limit) else { return nil }
            var compressed = [UInt8](repeating: 0, count: Int(data.compressedSize))
            guard compressed.withUnsafeMutableBytes({ source.copyBytes(at: data.start, into: $0) }) else { return nil }
            switch data.method {
            case 0:
                return compressed.count == Int(size) ? compressed : nil
            case 8:
                guard let inflater = RawInflater() else { return nil }
                var expanded = [UInt8](repeating: 0, count: Int(size))
                let outcome = compressed.withUnsafeBytes { input in expanded.withUnsafeMutableBytes { inflater.expand(input, into: $0) } }
                return outcome == .expanded(Int(size)) ? expanded : nil
            default:
                return nil
            }
        }
    }

    /// Where the data of each checked member begins, sorted, and its records.
    private let members: [(dataStart: Int64, member: Member)]
    /// Whether every member's local header was read and gives what the
    /// central directory gives: method, and CRC-32 and sizes unless a data
    /// descriptor carries them. libarchive refuses the first member that
    /// does not, as it reaches it; a reader that reads members alone
    /// (``MemberContents``) leaves such a zip to libarchive.
    let localHeadersAgree: Bool
    /// Where the data of each checked member ends (its compressed size
    /// after its start), sorted, and the member's index in ``members``:
    /// libarchive has read a symbolic link's target, its data, when it
    /// gives its header.
    private let ends: [(dataEnd: Int64, index: Int)]

    /// Reads the central directory of the zip in `source` and checks each
    /// member's local header against it; nil when there is no central
    /// directory to read (libarchive then reads the local headers alone,
    /// and so must anything else that reads that zip). `archive` names the
    /// archive in errors. Without `recordingMembers`, only the check is
    /// made (``localHeadersAgree``, and the names' refusal): the members'
    /// records are left empty, which spares a reader that takes the
    /// directory from elsewhere (``MemberContents``) a millisecond in 2,000
    /// members.
    init?(source: ArchiveReadSource, archive: String, recordingMembers: Bool = true) throws {
        guard let directory = try? ZipCentralDirectory(source: source) else { return nil }
        var entries = directory.records()
        var starts: [(dataStart: Int64, dataEnd: Int64?, member: Member)] = []
        var extents: [ZipMemberExtents.Extent] = []
        var agree = true
        do {
            while let entry = try entries.next() {
                let (record, fields, size, compressedSize) = (entry.record, entry.fields, entry.size, entry.compressedSize)
                // One read where the local header is as long as the central record's name and extra field, as it usually is.
                let guess = ZipLocalHeader.fixedLength + record.name.count + record.extra.count
                guard let at = entry.localHeader, at <= directory.total - Int64(ZipLocalHeader.fixedLength),
                      var bytes = LittleEndianBytes(reading: source, at: at, count: Int(min(Int64(guess), directory.total - at))),
                      let localLength = ZipLocalHeader.length(decoding: bytes)
                else {
                    agree = false
                    continue  // libarchive meets the damage when it reads this member
                }
                if localLength > bytes.count {
                    guard let whole = LittleEndianBytes(reading: source, at: at, count: localLength) else {
                        agree = false
                        continue
                    }
                    bytes = whole
                }
                guard let local = ZipLocalHeader(decoding: bytes) else {
                    agree = false
                    continue
                }
                let localFields = ZipExtraFields(local.extra)
                if local.method != record.method
                    || !local.hasDataDescriptor && (local.crc != record.crc
                        || localFields.resolvingZip64([UInt64(local.size), UInt64(local.compressedSize)]) != [size, compressedSize]) {
                    agree = false
                }
                let centralName = Name(bytes: record.name, flags: record.flags, fields: fields)
                let localName = Name(bytes: local.name, flags: local.flags, fields: localFields)
                guard localName.shown.elementsEqual(centralName.shown), localName.unicodePaths <= 1, centralName.unicodePaths <= 1 else {
                    throw ArchiveError(
                        .corrupt, archive: archive, entry: String(decoding: localName.shown, as: UTF8.self),
                        message: "the local header names this member \(localName), the central directory \(centralName); "
                            + "a zip whose local headers and central directory (what unzip and Python's zipfile list) disagree is refused")
                }
                extents.append(ZipMemberExtents.Extent(start: at, headerLength: localLength, compressedSize: compressedSize,
                                                       hasDescriptor: local.hasDataDescriptor && record.hasDataDescriptor, name: localName.shown))
                guard recordingMembers else { continue }
                let recorded = ZipRecordedMetadata(central: record, centralFields: fields, localFields: localFields)
                let dataStart = at + Int64(localLength)
                let dataEnd = dataStart.addingReportingOverflow(Int64(clamping: compressedSize))
                starts.append((dataStart, dataEnd.overflow ? nil : dataEnd.partialValue,
                               Member(name: localName.stored, permissions: recorded.permissions, modified: recorded.modified, size: size,
                                      data: (dataStart, compressedSize, record.method, record.isEncrypted))))
            }
        } catch is ZipCentralDirectory.Damage {
            return nil  // libarchive refuses the zip as it reads its first header
        }
        try ZipMemberExtents.check(extents, directoryStart: directory.start, archive: archive)
        starts.sort { $0.dataStart < $1.dataStart }
        localHeadersAgree = agree
        members = starts.map { ($0.dataStart, $0.member) }
        ends = starts.indices.compactMap { index in starts[index].dataEnd.map { ($0, index) } }.sorted { $0.dataEnd < $1.dataEnd }
    }

    /// The checked member whose data begins at `dataStart`; nil when no
    /// checked member's does.
    func member(dataStart: Int64) -> Member? {
        var low = 0, high = members.count
        while low < high {
            let middle = (low + high) / 2
            if members[middle].dataStart < dataStart { low = middle + 1 } else { high = middle }
        }
        return low < members.count && members[low].dataStart == dataStart ? members[low].member : nil
    }

    /// The checked member whose data ends at `dataEnd` (a symbolic link,
    /// once libarchive has read its target); nil when none or more than
    /// one member's does (members that share their data).
    func member(dataEnd: Int64) -> Member? {
        var low = 0, high = ends.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle].dataEnd < dataEnd { low = middle + 1 } else { high = middle }
        }
        guard low < ends.count, ends[low].dataEnd == dataEnd, low + 1 == ends.count || ends[low + 1].dataEnd != dataEnd else { return nil }
        return members[ends[low].index].member
    }

    /// A name without the UTF-8 flag as a reader decodes it (APPNOTE,
    /// appendix D): in code page 437, unless its bytes are valid UTF-8, as
    /// the many writers that set no flag store them.
    static func unflaggedName(_ bytes: [UInt8]) -> [UInt8] {
        String(validating: bytes, as: UTF8.self) == nil ? Name.codePage437(bytes) : bytes
    }

    /// A member's name as one header gives it: the name's bytes, the name
    /// of its first Unicode Path field where that holds, and the name a
    /// reader shows, in UTF-8. The lazy reader (``ZipContainerIndex``)
    /// names members, and checks their local headers, with it too.
    struct Name: CustomStringConvertible {
        var bytes: ArraySlice<UInt8>
        var unicodePath: ArraySlice<UInt8>?
        /// How many Unicode Path fields the header has.
        var unicodePaths: Int
        var shown: [UInt8]
        /// The name libarchive takes, byte for byte rather than in the NFC
        /// libarchive converts a UTF-8 one to: the Unicode Path where it
        /// holds and is UTF-8, else the name's bytes.
        var stored: [UInt8]

        init(bytes: ArraySlice<UInt8>, flags: ZipFlags, fields: ZipExtraFields) {
            self.bytes = bytes
            let paths = fields.all(ZipExtraFields.unicodePath)
            unicodePaths = paths.count
            // The field's data: version 1, the CRC-32 of the name's bytes, the name in UTF-8.
            if let field = paths.first, field.count > 5, field.first == 1 {
                let crc = bytes.withContiguousStorageIfAvailable { ccrc32_update(0, $0.baseAddress, $0.count) } ?? 0
                let stated = field.dropFirst().prefix(4).reversed().reduce(0) { $0 << 8 | UInt($1) }
                if UInt(crc) == stated { unicodePath = field.dropFirst(5) }
            }
            if let unicodePath {
                shown = Array(unicodePath)
                // libarchive falls back to the name when the field's is not UTF-8.
                stored = String(validating: shown, as: UTF8.self) == nil ? Array(bytes) : shown
            } else if flags.contains(.utf8Name) || bytes.allSatisfy({ $0 < 0x80 }) {
                shown = Array(bytes)
                stored = shown
            } else {
                shown = Self.codePage437(bytes)
                stored = Array(bytes)
            }
        }

        /// `bytes` read as code page 437, in UTF-8.
        static func codePage437(_ bytes: some Sequence<UInt8>) -> [UInt8] {
            var text = ""
            for byte in bytes {
                text.unicodeScalars.append(byte < 0x80 ? Unicode.Scalar(byte) : Unicode.Scalar(codePage437[Int(byte) - 0x80])!)
            }
            return Array(text.utf8)
        }

        /// The name's bytes, escaped and quoted, and the Unicode Path's.
        var description: String {
            let path = unicodePath.map { " (Unicode Path \"\(PathDisplay.text($0))\")" } ?? ""
            return "\"\(PathDisplay.text(bytes))\"" + path + (unicodePaths > 1 ? " (and \(unicodePaths) Unicode Path fields)" : "")
        }

        /// The characters of bytes 0x80 to 0xFF in code page 437.
        private static let codePage437: [UInt16] = [
            0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7, 0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
            0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9, 0x00FF, 0x00D6, 0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192,
            0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA, 0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
            0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556, 0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510,
            0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F, 0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567,
            0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B, 0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,
            0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4, 0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229,
            0x2261, 0x00B1, 0x2265, 0x2264, 0x2320, 0x2321, 0x00F7, 0x2248, 0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,
        ]
    }
}
