import Foundation

/// A JSON document or property list as data: what two parts are compared
/// as when only their formatting (key order, whitespace, XML or binary
/// encoding) may differ. Keys and strings are kept as UTF-8 bytes, so in
/// JSON and binary property lists two keys that are canonically
/// equivalent but spelled differently stay two; an XML property list is
/// read by Foundation, whose `String` keys merge such keys.
public indirect enum StructuredValue: Sendable, Hashable {
    case object([(key: [UInt8], value: StructuredValue)])
    case array([StructuredValue])
    case string([UInt8])
    /// A number as written (JSON) or as the property list holds it;
    /// compared by value, so `1.0` and `1` are the same.
    case number(Double, text: String)
    case bool(Bool)
    case null
    /// A property list's date and data.
    case date(Date)
    case data(Data)

    /// What kind of document a part is.
    public enum Syntax: String, Sendable {
        case json
        case propertyList = "property list"
    }

    /// Why a part that is JSON or a property list is not compared as data.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Reason: Error, Sendable, Hashable {
            /// It holds more than `limit` values, counted as they are
            /// expanded: in a binary property list an object referred to
            /// from many places counts at each.
            case tooManyNodes(limit: Int)
            /// It nests more than `limit` arrays and objects deep.
            case tooDeep(limit: Int)
            /// A binary property list's array or dictionary contains itself.
            case cycle
        }

        public var syntax: Syntax
        public var reason: Reason

        /// `the property list expands past 1000000 nodes`.
        public var description: String {
            let name = syntax == .json ? "the JSON" : "the property list"
            return switch reason {
            case .tooManyNodes(let limit): "\(name) expands past \(limit) nodes"
            case .tooDeep(let limit): "\(name) nests deeper than \(limit) levels"
            case .cycle: "\(name) contains itself"
            }
        }
    }

    /// The values a part may expand to, counted as they are made, so that
    /// memory and time stay in proportion to the limit whatever the part
    /// declares.
    struct Budget {
        let limit: Int
        private(set) var spent = 0

        /// Counts one more value.
        mutating func spend() throws(Refusal.Reason) {
            spent += 1
            if spent > limit { throw .tooManyNodes(limit: limit) }
        }
    }

    /// Values a part may expand to unless told otherwise: a few hundred
    /// MiB of memory at most.
    public static let defaultMaxNodes = 1_000_000

    /// How deep arrays and objects may nest: the reading and the
    /// comparison recurse once a level.
    public static let maxDepth = 512

    /// `bytes` as JSON (an object or an array at the top), else as a
    /// property list (XML or binary); nil for anything else; a refusal
    /// when it is one of them but expands past `maxNodes` values, nests
    /// deeper than ``maxDepth`` or contains itself.
    ///
    /// - Parameters:
    ///   - bytes: The part's contents.
    ///   - maxNodes: How many values the part may expand to.
    /// - Returns: The value and the syntax it was read as; nil when `bytes` is
    ///   neither JSON nor a property list.
    /// - Throws: ``StructuredValue/Refusal``, naming the syntax, when the part
    ///   expands past `maxNodes` values, nests deeper than ``maxDepth`` or
    ///   contains itself.
    public static func parse(_ bytes: [UInt8], maxNodes: Int = defaultMaxNodes) throws(Refusal) -> (value: StructuredValue, syntax: Syntax)? {
        var budget = Budget(limit: maxNodes)
        var syntax = Syntax.json
        do throws(Refusal.Reason) {
            if let value = try JSONParser.parse(bytes, budget: &budget) { return (value, .json) }
            syntax = .propertyList
            if bytes.starts(with: Array("bplist".utf8)) {
                return try BinaryPropertyList.parse(bytes, budget: &budget).map { ($0, .propertyList) }
            }
            if bytes.prefix(512).windows(containing: Array("<plist".utf8)) {
                guard let plist = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil),
                      let value = try StructuredValue(propertyList: plist, depth: 0, budget: &budget) else { return nil }
                return (value, .propertyList)
            }
            return nil
        } catch {
            throw Refusal(syntax: syntax, reason: error)
        }
    }

    /// A value Foundation's XML property-list reader gives.
    private init?(propertyList: Any, depth: Int, budget: inout Budget) throws(Refusal.Reason) {
        guard depth < Self.maxDepth else { throw .tooDeep(limit: Self.maxDepth) }
        try budget.spend()
        switch propertyList {
        case let dictionary as [String: Any]:
            var members: [(key: [UInt8], value: StructuredValue)] = []
            for (key, value) in dictionary {
                guard let converted = try StructuredValue(propertyList: value, depth: depth + 1, budget: &budget) else { return nil }
                members.append((Array(key.utf8), converted))
            }
            self = .object(members.sorted { $0.key.lexicographicallyPrecedes($1.key) })
        case let array as [Any]:
            var elements: [StructuredValue] = []
            for element in array {
                guard let converted = try StructuredValue(propertyList: element, depth: depth + 1, budget: &budget) else { return nil }
                elements.append(converted)
            }
            self = .array(elements)
        case let string as String: self = .string(Array(string.utf8))
        // `<true/>` and `<integer>1</integer>` both come as NSNumber, which
        // `as Bool` takes alike; only a boolean's type is `c`.
        case let number as NSNumber where String(cString: number.objCType) == "c": self = .bool(number.boolValue)
        case let number as NSNumber: self = .number(number.doubleValue, text: number.stringValue)
        case let date as Date: self = .date(date)
        case let data as Data: self = .data(data)
        default: return nil
        }
    }

    public static func == (lhs: StructuredValue, rhs: StructuredValue) -> Bool {
        switch (lhs, rhs) {
        case let (.object(a), .object(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.array(a), .array(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.number(a, _), .number(b, _)): a == b
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null): true
        case let (.date(a), .date(b)): a == b
        case let (.data(a), .data(b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .object(let members):
            for member in members { hasher.combine(member.key); hasher.combine(member.value) }
        case .array(let elements): hasher.combine(elements)
        case .string(let bytes): hasher.combine(bytes)
        case .number(let value, _): hasher.combine(value)
        case .bool(let value): hasher.combine(value)
        case .null: hasher.combine(0)
        case .date(let date): hasher.combine(date)
        case .data(let data): hasher.combine(data)
        }
    }

    /// The value in one line, as JSON writes it (a property list's date in
    /// ISO 8601, its data as `<hex>`), cut after `limit` characters.
    ///
    /// - Parameter limit: How many characters to keep before the `…`.
    /// - Returns: The line, at most `limit` characters and a `…`.
    public func summary(limit: Int = 60) -> String {
        var text = ""
        write(to: &text, limit: limit)
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    private func write(to text: inout String, limit: Int) {
        guard text.count <= limit else { return }
        switch self {
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += ", " }
                text += Self.quoted(member.key) + ": "
                member.value.write(to: &text, limit: limit)
                if text.count > limit { break }
            }
            text += "}"
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += ", " }
                element.write(to: &text, limit: limit)
                if text.count > limit { break }
            }
            text += "]"
        case .string(let bytes): text += Self.quoted(bytes)
        case .number(_, let written): text += written
        case .bool(let value): text += value ? "true" : "false"
        case .null: text += "null"
        case .date(let date): text += date.formatted(.iso8601)
        case .data(let data): text += "<" + data.prefix(32).map { String(format: "%02x", $0) }.joined() + (data.count > 32 ? "…" : "") + ">"
        }
    }

    /// `bytes` as a JSON string literal; bytes that are not UTF-8 as `\xHH`.
    static func quoted(_ bytes: [UInt8]) -> String {
        "\"" + PathDisplay.text(bytes).replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension Collection where Element == UInt8 {
    /// Whether `needle` occurs in this collection.
    fileprivate func windows(containing needle: [UInt8]) -> Bool {
        guard count >= needle.count else { return false }
        let bytes = Array(self)
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
