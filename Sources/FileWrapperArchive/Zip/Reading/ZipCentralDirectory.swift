/// A zip's central directory, found and walked by the one rule every reader
/// beside libarchive follows, libarchive's own, so that what they see is
/// what libarchive unpacks: the end records (``ZipDirectoryEnd``), then the
/// directory's start searched for from its size before them, where bytes
/// before the zip (a self-extracting stub) move it; every offset is then
/// corrected by how far that start is from where the end record says. The
/// records run from there, one after another, until the end records, as
/// libarchive reads them whatever count the end record gives.
///
/// The unpacker's parallel inflater (``ZipDirectory``), the check of local
/// headers against the directory (``ZipCentralNames``) and the lazy reader
/// (``ZipContainerIndex``) read it; each decides what a damaged record
/// means to it.
struct ZipCentralDirectory {
    /// One record, with its extra field parsed and zip64 values resolved.
    struct Entry {
        /// The record as decoded; its name, extra field and comment are
        /// slices of ``bytes``.
        var record: ZipCentralRecord
        /// The whole record as the archive stores it.
        var bytes: LittleEndianBytes
        var fields: ZipExtraFields
        var size: UInt64
        var compressedSize: UInt64
        /// Where the member's local header begins in the source, corrected
        /// for bytes before the zip; nil when that lies outside the source.
        var localHeader: Int64?
    }

    /// A directory that does not fit before the end records, a record that
    /// does not decode, or records that do not end at the end records.
    struct Damage: Error {
        /// The record's number, from 1; nil for the directory as a whole.
        var record: Int?
        /// The name the record gives, where it decodes.
        var name: ArraySlice<UInt8>? = nil
        var message: String
    }

    let source: ArchiveReadSource
    let end: ZipDirectoryEnd
    /// Where the directory begins and where the end records begin (the
    /// zip64 end record, where there is one).
    let start: Int64
    let endStart: Int64
    /// What is added to each offset the records give.
    let correction: Int64
    /// The source's size.
    let total: Int64

    /// The directory of the zip in `source`; nil when it has no end record
    /// (libarchive then reads the local headers alone, as a stream). Throws
    /// ``Damage`` when the directory the end record gives does not fit
    /// before it (libarchive then reads the zip as a stream too).
    init?(source: ArchiveReadSource) throws(Damage) {
        guard let total = source.size, let (end, endStart) = ZipDirectoryEnd.locate(in: source) else { return nil }
        guard end.size <= UInt64(endStart), end.offset <= UInt64(endStart) - end.size,
              let start = Self.start(in: source, from: endStart - Int64(end.size), to: endStart)
        else {
            throw Damage(record: nil, message: "the end of central directory record gives a directory that does not fit before it")
        }
        self.source = source
        self.end = end
        self.endStart = endStart
        self.start = start
        self.total = total
        correction = start - Int64(end.offset)
    }

    /// At most how many records the directory can hold, for a reader
    /// reserving room for them: the end record's count, within what its
    /// size has room for.
    var capacity: Int {
        Int(min(end.count, UInt64(endStart - start) / UInt64(ZipCentralRecord.fixedLength)))
    }

    /// The records, in order, read on demand.
    func records() -> Records {
        Records(directory: self)
    }

    /// Reads the records one after another, through the directory in pieces.
    struct Records {
        let directory: ZipCentralDirectory
        private var reader: ZipPieceReader
        private var position: Int64
        /// How many records were read.
        private(set) var count = 0

        fileprivate init(directory: ZipCentralDirectory) {
            self.directory = directory
            reader = ZipPieceReader(source: directory.source, start: directory.start, end: directory.endStart)
            position = directory.start
        }

        /// The next record; nil once the records reach the end records.
        /// Throws ``Damage`` where a record does not decode, runs into the
        /// end records or has a zip64 field too short for the values it
        /// stands for, and where something else lies before the end records.
        mutating func next() throws(Damage) -> Entry? {
            guard position < directory.endStart else { return nil }
            count += 1
            guard let fixed = reader.peek(ZipCentralRecord.fixedLength), let length = ZipCentralRecord.length(decoding: fixed),
                  let bytes = reader.peek(length), let record = ZipCentralRecord(decoding: bytes)
            else {
                throw Damage(record: count, message: "there is no whole central directory record at byte \(position), "
                    + "before the end of central directory record at byte \(directory.endStart)")
            }
            reader.advance(length)
            position += Int64(length)
            let fields = ZipExtraFields(record.extra)
            guard let (size, compressedSize, offset) = record.sizesAndOffset(fields) else {
                throw Damage(record: count, name: record.name, message: "the record's zip64 field is too short for the sizes and offset it stands for")
            }
            let corrected = Int64(clamping: offset).addingReportingOverflow(directory.correction)
            let inSource = !corrected.overflow && corrected.partialValue >= 0 && corrected.partialValue < directory.total
            return Entry(record: record, bytes: bytes, fields: fields, size: size, compressedSize: compressedSize,
                         localHeader: inSource ? corrected.partialValue : nil)
        }
    }

    /// Where the directory begins: the first record (or end record)
    /// signature from `start` on, as libarchive searches for it.
    private static func start(in source: ArchiveReadSource, from start: Int64, to end: Int64) -> Int64? {
        var reader = ZipPieceReader(source: source, start: start, end: end + 4)
        var offset = start
        while let signature = reader.peek(4) {
            if [ZipCentralRecord.signature, ZipDirectoryEnd.signature, ZipDirectoryEnd.zip64Signature].contains(signature.u32(0)) { return offset }
            reader.advance(1)
            offset += 1
        }
        return nil
    }
}
