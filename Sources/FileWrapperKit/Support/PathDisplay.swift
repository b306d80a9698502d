/// Turns file names, which Linux keeps as bytes, into text that shows every
/// byte: two different names never print alike.
package enum PathDisplay {
    /// `bytes` as text: valid UTF-8 without control characters, invisible
    /// or reordering characters (``Unicode/Scalar/isHiddenFormatting``) or
    /// backslashes is shown as it is; anything else is escaped (`\xFF` for a
    /// byte that is not UTF-8, `\u{7}` for a control character, `\u{202E}`
    /// for a right-to-left override, `\\` for a backslash).
    package static func text(_ bytes: some Collection<UInt8>) -> String {
        if let string = String(validating: bytes, as: UTF8.self),
           !string.unicodeScalars.contains(where: { $0 == "\\" || $0.isControlCharacter || $0.isHiddenFormatting }) {
            return string
        }
        return escaped(Array(bytes), escapingNonASCII: false)
    }

    /// `text` as an error message shows an entry: whole up to 240
    /// characters, otherwise its first 200 and its length, so that a path
    /// over a length limit does not flood the terminal.
    package static func shortened(_ text: String) -> String {
        text.count > 240 ? text.prefix(200) + "...(\(text.utf8.count) bytes)" : text
    }

    /// `names` appended to `root` with slashes, without doubling the slash
    /// of the root directory `/`.
    package static func join(_ root: String, _ names: [String]) -> String {
        guard !names.isEmpty else { return root }
        return (root.hasSuffix("/") ? root : root + "/") + names.joined(separator: "/")
    }

    /// Every scalar outside printable ASCII escaped, so that canonically
    /// equivalent spellings (`caf\u{E9}` and `cafe\u{301}`) look different.
    package static func escapedScalars(_ string: String) -> String {
        escaped(Array(string.utf8), escapingNonASCII: true)
    }

    private static func escaped(_ bytes: [UInt8], escapingNonASCII: Bool) -> String {
        var result = ""
        var index = 0
        while index < bytes.count {
            var units = bytes[index...].makeIterator()
            var decoder = UTF8()
            guard case .scalarValue(let scalar) = decoder.decode(&units) else {
                result += "\\x" + hex(UInt32(bytes[index]), width: 2)
                index += 1
                continue
            }
            if scalar == "\\" {
                result += "\\\\"
            } else if scalar.isControlCharacter || scalar.isHiddenFormatting || (escapingNonASCII && !scalar.isASCII) {
                result += "\\u{" + hex(scalar.value, width: 1) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
            index += UTF8.width(scalar)
        }
        return result
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

extension Unicode.Scalar {
    /// Whether this is a control character (general category Cc: C0, DEL
    /// and C1), decided by value: asking for the general category costs a
    /// table lookup per character, which showed in writing large manifests.
    package var isControlCharacter: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value)
    }

    /// Whether this character is invisible or reorders the text around it
    /// (the Trojan Source trick, CVE-2021-42574): the bidirectional
    /// embeddings, overrides, isolates and marks (U+202A-U+202E,
    /// U+2066-U+2069, U+200E, U+200F), the zero-width space, non-joiner and
    /// joiner (U+200B-U+200D), the byte order mark U+FEFF, and the line
    /// and paragraph separators U+2028 and U+2029. A name holding one
    /// would not print as what it is.
    package var isHiddenFormatting: Bool {
        switch value {
        case 0x200B...0x200F, 0x2028...0x202E, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }
}
