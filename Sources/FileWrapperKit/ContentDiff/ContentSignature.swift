/// A file's contents as git's rename detection sees them (diffcore-delta.c):
/// the contents cut into spans that end at a newline or after 64 bytes,
/// each span hashed, and the bytes counted per hash. Two signatures tell
/// how many bytes of one file reappear in another without keeping either.
///
/// Built block by block (``Builder``), so a file is read once and not kept.
public struct ContentSignature: Sendable, Hashable {
    /// A hash of spans and how many bytes its spans hold.
    struct Span: Sendable, Hashable {
        var hash: UInt32
        var count: UInt32
    }

    /// The file's size in bytes (carriage returns included).
    public let size: Int
    /// The spans by hash, ascending.
    let spans: [Span]

    /// The hash modulus git uses.
    private static let hashBase: UInt32 = 107_927

    /// Builds a signature from a file's bytes, given in blocks.
    public struct Builder: Sendable {
        /// The first bytes, kept until they tell text from binary.
        private var head: [UInt8] = []
        /// Whether the contents are text, once the first 8,000 bytes (or all) are in.
        private var isText: Bool?
        private var counts: [UInt32: UInt32] = [:]
        private var accumulator1: UInt32 = 0
        private var accumulator2: UInt32 = 0
        private var spanLength: UInt32 = 0
        /// A carriage return not yet hashed: in text it is skipped when a newline follows.
        private var pendingReturn = false
        private var size = 0

        /// How many first bytes decide whether the contents are text, as ``ByteDifference/isText(_:)``.
        private static let sniffLength = 8000

        public init() {}

        /// Adds the next block of the contents.
        ///
        /// - Parameter block: The bytes that follow those added so far.
        public mutating func append(_ block: some Collection<UInt8>) {
            size += block.count
            guard isText != nil else {
                head += block
                if head.count >= Self.sniffLength { decide() }
                return
            }
            for byte in block { add(byte) }
        }

        /// The signature of all the bytes added.
        ///
        /// - Returns: The signature of every byte appended.
        public mutating func finish() -> ContentSignature {
            if isText == nil { decide() }
            if pendingReturn {
                pendingReturn = false
                hash(UInt8(ascii: "\r"))
            }
            if spanLength > 0 { endSpan() }
            let spans = counts.map { Span(hash: $0.key, count: $0.value) }.sorted { $0.hash < $1.hash }
            return ContentSignature(size: size, spans: spans)
        }

        /// Decides text or binary on the bytes kept, then hashes them.
        private mutating func decide() {
            isText = ByteDifference.isText(head)
            let kept = head
            head = []
            for byte in kept { add(byte) }
        }

        /// One byte: git skips a carriage return right before a newline in text.
        private mutating func add(_ byte: UInt8) {
            if pendingReturn {
                pendingReturn = false
                if byte != UInt8(ascii: "\n") { hash(UInt8(ascii: "\r")) }
            }
            if byte == UInt8(ascii: "\r"), isText == true {
                pendingReturn = true
                return
            }
            hash(byte)
        }

        /// hash_chars's loop body, in 32-bit arithmetic as git's `unsigned int`.
        private mutating func hash(_ byte: UInt8) {
            let old1 = accumulator1
            accumulator1 = (accumulator1 << 7) ^ (accumulator2 >> 25)
            accumulator2 = (accumulator2 << 7) ^ (old1 >> 25)
            accumulator1 &+= UInt32(byte)
            spanLength += 1
            if spanLength < 64, byte != UInt8(ascii: "\n") { return }
            endSpan()
        }

        private mutating func endSpan() {
            let hash = (accumulator1 &+ accumulator2 &* 0x61) % ContentSignature.hashBase
            counts[hash, default: 0] += spanLength
            spanLength = 0
            accumulator1 = 0
            accumulator2 = 0
        }
    }

    /// The signature of `bytes`.
    ///
    /// - Parameter bytes: The whole contents.
    public init(of bytes: some Collection<UInt8>) {
        var builder = Builder()
        builder.append(bytes)
        self = builder.finish()
    }

    private init(size: Int, spans: [Span]) {
        self.size = size
        self.spans = spans
    }

    /// How many bytes of `self` reappear in `other`: per hash, the smaller
    /// count of the two (diffcore_count_changes's `src_copied`).
    func copiedBytes(into other: ContentSignature) -> Int {
        var copied = 0, i = 0, j = 0
        while i < spans.count, j < other.spans.count {
            if spans[i].hash < other.spans[j].hash {
                i += 1
            } else if spans[i].hash > other.spans[j].hash {
                j += 1
            } else {
                copied += Int(min(spans[i].count, other.spans[j].count))
                i += 1
                j += 1
            }
        }
        return copied
    }
}
