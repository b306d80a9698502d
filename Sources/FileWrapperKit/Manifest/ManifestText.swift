import Foundation

/// The text of a manifest file as it is written, in bytes: numbers,
/// digests and JSON strings are appended as they are formatted, with no
/// `String` made for each, and the text is handed on in pieces of about
/// ``pieceSize`` bytes, so that a manifest of any size is written with
/// memory for one piece.
struct ManifestText {
    /// How much text is gathered before it is handed on.
    static let pieceSize = 1 << 16

    private(set) var bytes: [UInt8] = []

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(utf8 text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends what `write` writes through a cursor, at most `maximum`
    /// bytes: many small pieces (an entry's fields) for the cost of one
    /// append, with no capacity check per piece. Writing more than
    /// `maximum` stops the program rather than overrun.
    mutating func append(atMost maximum: Int, _ write: (inout TextCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximum) { buffer in
            var cursor = TextCursor(buffer)
            write(&cursor)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<cursor.count]))
        }
    }

    /// `value` in decimal, with a `-` when negative.
    mutating func append(decimal value: some BinaryInteger) {
        append(atMost: TextCursor.longestNumber) { $0.append(decimal: value) }
    }

    /// Permission bits as at least four octal digits (`0755`).
    mutating func append(mode permissions: UInt16) {
        append(atMost: TextCursor.longestNumber) { $0.append(mode: permissions) }
    }

    /// A time as `<seconds>.<nanoseconds>` (``TextCursor/append(time:)``).
    mutating func append(time: FileTimestamp) {
        append(atMost: 2 * TextCursor.longestNumber) { $0.append(time: time) }
    }

    mutating func append(hex digest: SHA256Digest) {
        append(atMost: 64) { $0.append(hex: digest) }
    }

    /// `string` as a JSON string (``JSONText``).
    mutating func append(json string: String) {
        JSONText.append(string, to: &bytes)
    }

    /// `value` in `radix`, padded with zeros to `width` (at most 64).
    mutating func append(digitsOf value: UInt64, radix: UInt64, width: Int) {
        append(atMost: TextCursor.longestNumber) { $0.append(digitsOf: value, radix: radix, width: width) }
    }

    /// Hands the text gathered so far to `deliver` and starts afresh, when
    /// it fills a piece or, with `finishing`, whatever it holds.
    mutating func handOn<Failure: Error>(
        finishing: Bool = false, to deliver: (UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        guard bytes.count >= Self.pieceSize || (finishing && !bytes.isEmpty) else { return }
        try bytes.withUnsafeBytes { piece in Result { () throws(Failure) in try deliver(piece) } }.get()
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Writes text into memory made ready for it (``ManifestText/append(atMost:_:)``),
/// without the bookkeeping of an array append for each piece; every write
/// checks that it fits.
struct TextCursor {
    /// Characters at most of a number this cursor writes (64 binary digits).
    static let longestNumber = 66

    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// Bytes written so far.
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// The next `length` bytes, to be initialized by the caller.
    private mutating func claim(_ length: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(length <= buffer.count - count, "text longer than the room made for it")
        defer { count += length }
        return buffer.baseAddress! + count
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { text in
            guard let start = text.baseAddress else { return }
            claim(text.count).initialize(from: start, count: text.count)
        }
    }

    mutating func append(byte: UInt8) {
        claim(1).initialize(to: byte)
    }

    mutating func append(contentsOf bytes: some Collection<UInt8>) {
        let target = claim(bytes.count)
        let copied: Void? = bytes.withContiguousStorageIfAvailable { bytes in
            if let start = bytes.baseAddress { target.initialize(from: start, count: bytes.count) }
        }
        if copied == nil {
            _ = UnsafeMutableBufferPointer(start: target, count: bytes.count).initialize(from: bytes)
        }
    }

    mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// `string` as a JSON string (``JSONText``).
    mutating func append(json string: String) {
        var text: [UInt8] = []
        JSONText.append(string, to: &text)
        append(contentsOf: text)
    }

    /// A path or link target under `key`, as a JSON member: its text when
    /// it is UTF-8; else its escaped display form, and the exact bytes in
    /// base64 under `base64Key`.
    mutating func append(key: StaticString, bytes value: [UInt8], base64Key: StaticString) {
        append("\"")
        append(key)
        append("\":")
        if appendASCIIJSONString(value) { return }
        if let text = String(validating: value, as: UTF8.self) {
            append(json: text)
            return
        }
        append(json: PathDisplay.text(value))
        append(",\"")
        append(base64Key)
        append("\":\"")
        append(utf8: Data(value).base64EncodedString())
        append("\"")
    }

    /// Writes `value` as a JSON string, with the escapes ``JSONText`` uses,
    /// when every byte is ASCII (names nearly always are); `false`, with
    /// nothing written, when one is not.
    private mutating func appendASCIIJSONString(_ value: [UInt8]) -> Bool {
        let (isASCII, needsEscapes) = value.withUnsafeBytes(Self.classify)
        guard isASCII else { return false }
        append(byte: UInt8(ascii: "\""))
        guard needsEscapes else {
            append(contentsOf: value)
            append(byte: UInt8(ascii: "\""))
            return true
        }
        for byte in value {
            switch byte {
            case UInt8(ascii: "\""): append(#"\""#)
            case UInt8(ascii: "\\"): append(#"\\"#)
            case UInt8(ascii: "\n"): append(#"\n"#)
            case UInt8(ascii: "\r"): append(#"\r"#)
            case UInt8(ascii: "\t"): append(#"\t"#)
            case 0x08: append(#"\b"#)
            case 0x0C: append(#"\f"#)
            case ..<0x20, 0x7F:
                append(#"\u"#)
                append(digitsOf: UInt64(byte), radix: 16, width: 4)
            default: append(byte: byte)
            }
        }
        append(byte: UInt8(ascii: "\""))
        return true
    }

    /// Whether all of `bytes` are ASCII, and whether one of them needs a
    /// JSON escape (a control character, DEL, `"` or `\`). Eight bytes at
    /// a time: a name is read here once for every entry of a manifest.
    private static func classify(_ bytes: UnsafeRawBufferPointer) -> (isASCII: Bool, needsEscapes: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits = ones << 7
        /// Nonzero when a byte of `word` is zero.
        func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highBits }
        var high: UInt64 = 0
        var special: UInt64 = 0
        var index = 0
        while index < bytes.count {
            var word: UInt64 = 0
            let length = min(8, bytes.count - index)
            // A partial word is padded with spaces, which are neither high nor special.
            if length < 8 { word = 0x2020_2020_2020_2020 }
            withUnsafeMutableBytes(of: &word) { $0.baseAddress!.copyMemory(from: bytes.baseAddress! + index, byteCount: length) }
            high |= word & highBits
            let low = word & ~highBits
            special |= zeroBytes(low & 0x6060_6060_6060_6060)  // 0x00-0x1F
                | zeroBytes(low ^ (0x7F &* ones))
                | zeroBytes(low ^ (UInt64(UInt8(ascii: "\"")) &* ones))
                | zeroBytes(low ^ (UInt64(UInt8(ascii: "\\")) &* ones))
            index += 8
        }
        return (high == 0, special != 0)
    }

    /// `value` in decimal, with a `-` when negative.
    mutating func append(decimal value: some BinaryInteger) {
        if value < 0 { append(byte: UInt8(ascii: "-")) }
        append(digitsOf: UInt64(value.magnitude), radix: 10, width: 1)
    }

    /// Permission bits as at least four octal digits (`0755`).
    mutating func append(mode permissions: UInt16) {
        append(digitsOf: UInt64(permissions), radix: 8, width: 4)
    }

    /// A time as `<seconds>.<nanoseconds>`: whole seconds since 1970
    /// rounded down, then always nine digits (``ManifestFileSyntax/text(_:)``).
    mutating func append(time: FileTimestamp) {
        append(decimal: time.seconds)
        append(byte: UInt8(ascii: "."))
        append(digitsOf: UInt64(time.nanoseconds), radix: 10, width: 9)
    }

    mutating func append(hex digest: SHA256Digest) {
        digest.writeHex(to: claim(64))
    }

    /// `value` in `radix` (lowercase digits), padded with zeros to `width`
    /// (at most 64). Inlined, so that each caller's constant radix makes
    /// its divisions multiplications.
    @inline(__always)
    mutating func append(digitsOf value: UInt64, radix: UInt64, width: Int) {
        var digits = 1
        var rest = value / radix
        while rest > 0 {
            digits += 1
            rest /= radix
        }
        let length = max(digits, width)
        let start = claim(length)
        var next = start + length
        rest = value
        for _ in 0..<length {
            let digit = UInt8(rest % radix)
            next -= 1
            next.initialize(to: digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
            rest /= radix
        }
    }
}
