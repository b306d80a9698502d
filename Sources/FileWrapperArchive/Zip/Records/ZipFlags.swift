/// A zip header's general purpose bit flag (APPNOTE 4.4.4), as the local
/// header and the central directory record both store it.
struct ZipFlags: OptionSet, Sendable, Hashable {
    var rawValue: UInt16

    /// Bit 0: the data is encrypted (traditional PKWARE or, with
    /// ``strongEncryption``, strong encryption).
    static let encrypted = ZipFlags(rawValue: 1 << 0)
    /// Bits 1 and 2: the compression option (for deflate, the level the
    /// writer used), which no reader needs.
    static let compressionOption = ZipFlags(rawValue: 3 << 1)
    /// Bit 3: the CRC-32 and sizes follow the data in a data descriptor.
    static let dataDescriptor = ZipFlags(rawValue: 1 << 3)
    /// Bit 6: strong encryption.
    static let strongEncryption = ZipFlags(rawValue: 1 << 6)
    /// Bit 11: the name and comment are UTF-8.
    static let utf8Name = ZipFlags(rawValue: 1 << 11)
    /// Bit 13: the local header's values are masked (central directory encryption).
    static let maskedLocalHeader = ZipFlags(rawValue: 1 << 13)

    /// Either kind of encryption, which none of our readers decodes.
    var isEncrypted: Bool { !isDisjoint(with: [.encrypted, .strongEncryption]) }
}
