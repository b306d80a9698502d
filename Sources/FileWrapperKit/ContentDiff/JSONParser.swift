/// A strict JSON reader (RFC 8259) for ``StructuredValue``: an object or
/// an array at the top, keys and strings kept as UTF-8 bytes (Foundation's
/// reader gives `String` keys, which merge keys that are canonically
/// equivalent). Nil for anything else; a refusal past ``StructuredValue/maxDepth``
/// levels or past `budget`'s values.
enum JSONParser {
    static func parse(_ bytes: [UInt8], budget: inout StructuredValue.Budget) throws(StructuredValue.Refusal.Reason) -> StructuredValue? {
        var parser = Cursor(bytes: bytes)
        parser.skipSpace()
        guard let first = parser.peek, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        guard let value = try parser.value(depth: 0, budget: &budget) else { return nil }
        parser.skipSpace()
        return parser.atEnd ? value : nil
    }

    private struct Cursor {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func expect(_ literal: String) -> Bool {
            let expected = Array(literal.utf8)
            guard bytes[index...].starts(with: expected) else { return false }
            index += expected.count
            return true
        }

        mutating func value(depth: Int, budget: inout StructuredValue.Budget) throws(StructuredValue.Refusal.Reason) -> StructuredValue? {
            guard depth < StructuredValue.maxDepth else { throw .tooDeep(limit: StructuredValue.maxDepth) }
            try budget.spend()
            skipSpace()
            switch peek {
            case UInt8(ascii: "{"): return try object(depth: depth, budget: &budget)
            case UInt8(ascii: "["): return try array(depth: depth, budget: &budget)
            case UInt8(ascii: "\""): return string().map(StructuredValue.string)
            case UInt8(ascii: "t"): return expect("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return expect("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return expect("null") ? .null : nil
            default: return number()
            }
        }

        mutating func object(depth: Int, budget: inout StructuredValue.Budget) throws(StructuredValue.Refusal.Reason) -> StructuredValue? {
            index += 1
            var members: [(key: [UInt8], value: StructuredValue)] = []
            skipSpace()
            if peek == UInt8(ascii: "}") { index += 1; return .object([]) }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let value = try value(depth: depth + 1, budget: &budget) else { return nil }
                members.append((key, value))
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    // Key order is formatting: members compare sorted by key bytes.
                    return .object(members.sorted { $0.key.lexicographicallyPrecedes($1.key) })
                default: return nil
                }
            }
        }

        mutating func array(depth: Int, budget: inout StructuredValue.Budget) throws(StructuredValue.Refusal.Reason) -> StructuredValue? {
            index += 1
            var elements: [StructuredValue] = []
            skipSpace()
            if peek == UInt8(ascii: "]") { index += 1; return .array([]) }
            while true {
                guard let element = try value(depth: depth + 1, budget: &budget) else { return nil }
                elements.append(element)
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return .array(elements)
                default: return nil
                }
            }
        }

        /// A string's bytes, escapes decoded; nil for a control character,
        /// a bad escape or a lone surrogate.
        mutating func string() -> [UInt8]? {
            index += 1
            var result: [UInt8] = []
            while let byte = peek {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return result
                case 0..<0x20: return nil
                case UInt8(ascii: "\\"):
                    guard let escape = peek else { return nil }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escape)
                    case UInt8(ascii: "b"): result.append(0x08)
                    case UInt8(ascii: "f"): result.append(0x0C)
                    case UInt8(ascii: "n"): result.append(0x0A)
                    case UInt8(ascii: "r"): result.append(0x0D)
                    case UInt8(ascii: "t"): result.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard expect("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        result += Array(String(Character(unicode)).utf8)
                    default: return nil
                    }
                default: result.append(byte)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else { return nil }
            index += 4
            return value
        }

        /// A number in JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
        mutating func number() -> StructuredValue? {
            let start = index
            func digits() -> Int {
                let first = index
                while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
                return index - first
            }
            if peek == UInt8(ascii: "-") { index += 1 }
            if peek == UInt8(ascii: "0") { index += 1 } else if digits() == 0 { return nil }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return nil }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return nil }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text) else { return nil }
            return .number(value, text: text)
        }
    }
}
