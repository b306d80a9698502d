import Crypto

/// A SHA-256 digest: 32 bytes, compared and hashed cheaply, shown as 64
/// lowercase hexadecimal digits.
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: [UInt8]

    /// The digest of `bytes`, which must be 32 long.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// The digest written as 64 hexadecimal digits (either case).
    public init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.value(of: digits[index]), let low = Self.value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    init(_ digest: SHA256.Digest) {
        bytes = Array(digest)
    }

    /// The digest of `data`, in one call.
    public static func of(_ data: some Sequence<UInt8>) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(data: Array(data))
        return SHA256Digest(hasher.finalize())
    }

    /// 64 lowercase hexadecimal digits.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public var description: String { hex }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// SHA-256 fed in pieces, for contents that stream.
public struct ContentHasher: Sendable {
    private var hasher = SHA256()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    public consuming func finalize() -> SHA256Digest {
        SHA256Digest(hasher.finalize())
    }
}

extension ContentHasher {
    /// The digest and length of contents that `forEachBlock` hands over in
    /// blocks, each block's bytes counted into `progress`.
    package static func digest(
        progress: ManifestProgress? = nil,
        of forEachBlock: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> (digest: SHA256Digest, size: Int64) {
        var hasher = ContentHasher()
        var size: Int64 = 0
        try forEachBlock { block in
            hasher.update(block)
            size += Int64(block.count)
            progress?.count(bytes: Int64(block.count))
        }
        return (hasher.finalize(), size)
    }
}
