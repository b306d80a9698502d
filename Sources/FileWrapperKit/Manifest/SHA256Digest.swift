import CSHA256

/// A SHA-256 digest: 32 bytes, compared and hashed cheaply, shown as 64
/// lowercase hexadecimal digits.
///
/// The bytes are held inline, in the storage of four words, so that a
/// digest costs no allocation: a manifest holds two or three an entry.
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    private var words: (UInt64, UInt64, UInt64, UInt64)

    /// The 32 bytes.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// The digest of `bytes`, which must be 32 long.
    ///
    /// - Parameter bytes: The 32 bytes; nil for another count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        words = (0, 0, 0, 0)
        withUnsafeMutableBytes { $0.copyBytes(from: bytes) }
    }

    /// The digest written as 64 hexadecimal digits (either case).
    ///
    /// - Parameter hex: The digits; nil for anything else.
    public init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.value(of: digits[index]), let low = Self.value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(bytes: bytes)
    }

    /// The digest that `write` puts into 32 bytes.
    fileprivate init(writing write: (UnsafeMutableRawBufferPointer) -> Void) {
        words = (0, 0, 0, 0)
        withUnsafeMutableBytes(write)
    }

    /// The digest of `data`, in one call.
    ///
    /// - Parameter data: The bytes to hash.
    /// - Returns: Their SHA-256.
    public static func of(_ data: some Sequence<UInt8>) -> SHA256Digest {
        var hasher = SHA256Hasher()
        hasher.update(Array(data))
        return hasher.finalize()
    }

    /// 64 lowercase hexadecimal digits.
    public var hex: String {
        String(unsafeUninitializedCapacity: 64) { text in
            writeHex(to: text.baseAddress!)
            return 64
        }
    }

    public var description: String { hex }

    /// Writes the 64 lowercase hexadecimal digits to the uninitialized
    /// memory at `text`.
    func writeHex(to text: UnsafeMutablePointer<UInt8>) {
        withUnsafeBytes { bytes in
            for (index, byte) in bytes.enumerated() {
                (text + 2 * index).initialize(to: Self.digit(byte >> 4))
                (text + 2 * index + 1).initialize(to: Self.digit(byte & 15))
            }
        }
    }

    /// Calls `body` with the 32 bytes, without copying them into an array.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try Swift.withUnsafeBytes(of: words, body)
    }

    private mutating func withUnsafeMutableBytes(_ body: (UnsafeMutableRawBufferPointer) -> Void) {
        Swift.withUnsafeMutableBytes(of: &words, body)
    }

    public static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        lhs.words == rhs.words
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// The lowercase hexadecimal digit of `value` (below 16).
    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// SHA-256 fed in pieces: contents that stream, and the encodings of the
/// tree digest. Its state is a value, so a hash allocates nothing.
public struct SHA256Hasher: Sendable {
    private var context = csha256_context()

    public init() {
        csha256_init(&context)
    }

    /// Hashes `bytes` after those given so far.
    ///
    /// - Parameter bytes: The next bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        csha256_update(&context, bytes.baseAddress, bytes.count)
    }

    /// Hashes `bytes` after those given so far.
    ///
    /// - Parameter bytes: The next bytes.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of every byte given.
    ///
    /// - Returns: The SHA-256.
    public consuming func finalize() -> SHA256Digest {
        SHA256Digest { csha256_final(&context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
    }
}

extension SHA256Hasher {
    /// The digest and length of contents that `forEachBlock` hands over in
    /// blocks, each block's bytes counted into `progress`.
    package static func digest(
        progress: ManifestProgress? = nil,
        of forEachBlock: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> (digest: SHA256Digest, size: Int64) {
        var hasher = SHA256Hasher()
        var size: Int64 = 0
        try forEachBlock { block in
            hasher.update(block)
            size += Int64(block.count)
            progress?.count(bytes: Int64(block.count))
        }
        return (hasher.finalize(), size)
    }
}
