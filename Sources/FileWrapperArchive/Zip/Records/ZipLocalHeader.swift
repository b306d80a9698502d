/// A zip member's local file header (APPNOTE 4.3.7): encoded by the
/// writer, decoded by the readers that look beside libarchive.
struct ZipLocalHeader {
    static let signature: UInt32 = 0x0403_4B50
    /// The bytes before the name.
    static let fixedLength = 30

    var versionNeeded: UInt16
    var flags: ZipFlags
    var method: UInt16
    /// ``ZipDOSDateTime``.
    var dosDateTime: UInt32
    var crc: UInt32
    var compressedSize: UInt32
    var size: UInt32
    var name: ArraySlice<UInt8>
    var extra: ArraySlice<UInt8>

    /// Whether a data descriptor follows the data.
    var hasDataDescriptor: Bool { flags.contains(.dataDescriptor) }

    init(versionNeeded: UInt16, flags: ZipFlags, method: UInt16, dosDateTime: UInt32, crc: UInt32,
         compressedSize: UInt32, size: UInt32, name: ArraySlice<UInt8>, extra: ArraySlice<UInt8>) {
        self.versionNeeded = versionNeeded
        self.flags = flags
        self.method = method
        self.dosDateTime = dosDateTime
        self.crc = crc
        self.compressedSize = compressedSize
        self.size = size
        self.name = name
        self.extra = extra
    }

    /// The header whose bytes `bytes` begin with; nil without the
    /// signature, or when `bytes` end before its name and extra field do.
    init?(decoding bytes: LittleEndianBytes) {
        guard let length = Self.length(decoding: bytes), length <= bytes.count else { return nil }
        let nameLength = bytes.u16(26)
        self.init(
            versionNeeded: UInt16(bytes.u16(4)), flags: ZipFlags(rawValue: UInt16(bytes.u16(6))), method: UInt16(bytes.u16(8)),
            dosDateTime: bytes.u32(10), crc: bytes.u32(14), compressedSize: bytes.u32(18), size: bytes.u32(22),
            name: bytes.bytes(Self.fixedLength, count: nameLength),
            extra: bytes.bytes(Self.fixedLength + nameLength, count: bytes.u16(28)))
    }

    /// What a header's first ``fixedLength`` bytes say about reading the
    /// rest of the member: enough to pass over it, or to look closer.
    struct Prefix {
        var flags: ZipFlags
        var method: UInt16
        /// The whole header's length, name and extra field included: where the data begins.
        var length: Int

        var isEncrypted: Bool { flags.contains(.encrypted) }
    }

    /// The prefix of the header whose bytes `bytes` begin with; nil when
    /// they are fewer than ``fixedLength`` or lack the signature.
    static func prefix(decoding bytes: LittleEndianBytes) -> Prefix? {
        guard bytes.count >= fixedLength, bytes.u32(0) == signature else { return nil }
        return Prefix(flags: ZipFlags(rawValue: UInt16(bytes.u16(6))), method: UInt16(bytes.u16(8)), length: fixedLength + bytes.u16(26) + bytes.u16(28))
    }

    /// The whole header's length (``Prefix/length``).
    static func length(decoding bytes: LittleEndianBytes) -> Int? {
        prefix(decoding: bytes)?.length
    }

    func encoded() -> [UInt8] {
        var bytes = ZipBytes(capacity: Self.fixedLength + name.count + extra.count)
        bytes.u32(Self.signature)
        bytes.u16(versionNeeded, flags.rawValue, method)
        bytes.u32(dosDateTime, crc, compressedSize, size)
        bytes.u16(UInt16(name.count), UInt16(extra.count))
        bytes.bytes(name)
        bytes.bytes(extra)
        return bytes.bytes
    }
}
