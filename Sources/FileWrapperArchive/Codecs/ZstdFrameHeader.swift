/// The window a zstd frame declares in its header (RFC 8878, 3.1.1.1): the
/// memory a decoder needs to decode it.
enum ZstdFrameHeader {
    /// What the first bytes of a frame, `bytes`, tell.
    enum Reading: Equatable {
        /// The window, in bytes.
        case window(UInt64)
        /// The header is this many bytes long; fewer are there.
        case needs(Int)
        /// Not a frame with a window (a skippable frame, or not zstd).
        case none
    }

    static func read(_ bytes: some Collection<UInt8>) -> Reading {
        let bytes = Array(bytes.prefix(18))
        guard bytes.count >= 5 else { return .needs(5) }
        guard bytes.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) else { return .none }
        let descriptor = bytes[4]
        let singleSegment = descriptor & 0x20 != 0
        let dictionaryIDSize = [0, 1, 2, 4][Int(descriptor & 0x03)]
        let contentSizeSize = [singleSegment ? 1 : 0, 2, 4, 8][Int(descriptor >> 6)]
        let size = 5 + (singleSegment ? 0 : 1) + dictionaryIDSize + contentSizeSize
        guard bytes.count >= size else { return .needs(size) }
        guard singleSegment else {
            // Window_Descriptor: an exponent and an eighth of it to add, times a mantissa.
            let base = UInt64(1) << (10 + UInt64(bytes[5] >> 3))
            return .window(base + base / 8 * UInt64(bytes[5] & 0x07))
        }
        // A single segment: the window is the content size.
        let field = bytes[(5 + dictionaryIDSize)..<size]
        let value = field.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return .window(contentSizeSize == 2 ? value + 256 : value)
    }
}
