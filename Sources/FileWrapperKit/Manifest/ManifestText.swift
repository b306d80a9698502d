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

    /// `value` in decimal, with a `-` when negative.
    mutating func append(decimal value: some BinaryInteger) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
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
        bytes.append(UInt8(ascii: "."))
        append(digitsOf: UInt64(time.nanoseconds), radix: 10, width: 9)
    }

    mutating func append(hex digest: SHA256Digest) {
        digest.appendHex(to: &bytes)
    }

    /// `string` as a JSON string (``JSONText``).
    mutating func append(json string: String) {
        JSONText.append(string, to: &bytes)
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
        var needsEscapes = false
        let isASCII = value.withUnsafeBufferPointer { value in
            for byte in value {
                if byte >= 0x80 { return false }
                needsEscapes = needsEscapes || byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
            }
            return true
        }
        guard isASCII else { return false }
        bytes.append(UInt8(ascii: "\""))
        guard needsEscapes else {
            bytes.append(contentsOf: value)
            bytes.append(UInt8(ascii: "\""))
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
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return true
    }

    /// `value` in `radix` (lowercase digits), padded with zeros to `width`
    /// (at most 64).
    mutating func append(digitsOf value: UInt64, radix: UInt64, width: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digits in
            var start = digits.count
            var rest = value
            repeat {
                let digit = UInt8(rest % radix)
                start -= 1
                digits[start] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                rest /= radix
            } while rest > 0
            while digits.count - start < width {
                start -= 1
                digits[start] = UInt8(ascii: "0")
            }
            bytes.append(contentsOf: digits[start...])
        }
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
