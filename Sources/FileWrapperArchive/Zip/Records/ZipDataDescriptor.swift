/// The data descriptor after a member's data (APPNOTE 4.3.9), with its
/// signature, for a member whose CRC and sizes were not known when its
/// local header was written; the sizes are 8 bytes each for zip64. The
/// readers leave descriptors to libarchive.
struct ZipDataDescriptor {
    static let signature: UInt32 = 0x0807_4B50

    var crc: UInt32
    var compressedSize: UInt64
    var size: UInt64
    var isZip64: Bool

    func encoded() -> [UInt8] {
        var bytes = ZipBytes(capacity: 24)
        bytes.u32(Self.signature, crc)
        if isZip64 {
            bytes.u64(compressedSize, size)
        } else {
            bytes.u32(UInt32(compressedSize), UInt32(size))
        }
        return bytes.bytes
    }
}
