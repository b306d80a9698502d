/// A zip member's central directory record (APPNOTE 4.3.12): encoded by
/// the writer, decoded by the readers that look beside libarchive.
struct ZipCentralRecord {
    static let signature: UInt32 = 0x0201_4B50
    /// The bytes before the name.
    static let fixedLength = 46
    /// The host of ``versionMadeBy`` whose external attributes hold a Unix mode.
    static let unixHost: UInt16 = 3

    /// The host in the high byte (3: Unix), the version in the low one.
    var versionMadeBy: UInt16
    var versionNeeded: UInt16
    var flags: ZipFlags
    var method: UInt16
    var dosDateTime: UInt32
    var crc: UInt32
    var compressedSize: UInt32
    var size: UInt32
    var diskStart: UInt16 = 0
    var internalAttributes: UInt16 = 0
    /// Made on Unix: the mode in the high 16 bits; MS-DOS attributes in the low 8.
    var externalAttributes: UInt32
    var localHeaderOffset: UInt32
    var name: ArraySlice<UInt8>
    var extra: ArraySlice<UInt8>
    var comment: ArraySlice<UInt8> = []

    init(versionMadeBy: UInt16, versionNeeded: UInt16, flags: ZipFlags, method: UInt16, dosDateTime: UInt32, crc: UInt32,
         compressedSize: UInt32, size: UInt32, externalAttributes: UInt32, localHeaderOffset: UInt32,
         name: ArraySlice<UInt8>, extra: ArraySlice<UInt8>) {
        self.versionMadeBy = versionMadeBy
        self.versionNeeded = versionNeeded
        self.flags = flags
        self.method = method
        self.dosDateTime = dosDateTime
        self.crc = crc
        self.compressedSize = compressedSize
        self.size = size
        self.externalAttributes = externalAttributes
        self.localHeaderOffset = localHeaderOffset
        self.name = name
        self.extra = extra
    }

    /// The record whose bytes `bytes` begin with; nil without the
    /// signature, or when `bytes` end before its comment does.
    init?(decoding bytes: LittleEndianBytes) {
        guard let length = Self.length(decoding: bytes), length <= bytes.count else { return nil }
        let (nameLength, extraLength, commentLength) = (bytes.u16(28), bytes.u16(30), bytes.u16(32))
        self.init(
            versionMadeBy: UInt16(bytes.u16(4)), versionNeeded: UInt16(bytes.u16(6)), flags: ZipFlags(rawValue: UInt16(bytes.u16(8))),
            method: UInt16(bytes.u16(10)), dosDateTime: bytes.u32(12), crc: bytes.u32(16), compressedSize: bytes.u32(20),
            size: bytes.u32(24), externalAttributes: bytes.u32(38), localHeaderOffset: bytes.u32(42),
            name: bytes.bytes(Self.fixedLength, count: nameLength),
            extra: bytes.bytes(Self.fixedLength + nameLength, count: extraLength))
        diskStart = UInt16(bytes.u16(34))
        internalAttributes = UInt16(bytes.u16(36))
        comment = bytes.bytes(Self.fixedLength + nameLength + extraLength, count: commentLength)
    }

    /// The whole record's length, name, extra field and comment included,
    /// from its first ``fixedLength`` bytes; nil when they are fewer or
    /// lack the signature.
    static func length(decoding bytes: LittleEndianBytes) -> Int? {
        guard bytes.count >= fixedLength, bytes.u32(0) == signature else { return nil }
        return fixedLength + bytes.u16(28) + bytes.u16(30) + bytes.u16(32)
    }

    var isEncrypted: Bool { flags.contains(.encrypted) }
    /// Whether a data descriptor follows the data.
    var hasDataDescriptor: Bool { flags.contains(.dataDescriptor) }

    /// The expanded size, the compressed size and the local header's
    /// offset, those at 0xFFFFFFFF from the zip64 field of `fields` (this
    /// record's extra field); nil when that field is too short for them.
    func sizesAndOffset(_ fields: ZipExtraFields) -> (size: UInt64, compressedSize: UInt64, offset: UInt64)? {
        guard let values = fields.resolvingZip64([UInt64(size), UInt64(compressedSize), UInt64(localHeaderOffset)]) else { return nil }
        return (values[0], values[1], values[2])
    }

    func encoded() -> [UInt8] {
        var bytes = ZipBytes(capacity: Self.fixedLength + name.count + extra.count + comment.count)
        bytes.u32(Self.signature)
        bytes.u16(versionMadeBy, versionNeeded, flags.rawValue, method)
        bytes.u32(dosDateTime, crc, compressedSize, size)
        bytes.u16(UInt16(name.count), UInt16(extra.count), UInt16(comment.count), diskStart, internalAttributes)
        bytes.u32(externalAttributes, localHeaderOffset)
        bytes.bytes(name)
        bytes.bytes(extra)
        bytes.bytes(comment)
        return bytes.bytes
    }
}
