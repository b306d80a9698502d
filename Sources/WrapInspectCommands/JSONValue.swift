import FileWrapperKit

/// A JSON value whose objects keep their keys in the order given, so the
/// output of `--json` is stable and reads in a sensible order.
enum JSONValue {
    case string(String)
    case number(Int64)
    /// A number as JSON text (`2.5`, `-1e10`), written as it is.
    case numberText(String)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The value as compact JSON text.
    var serialized: String {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func write(to bytes: inout [UInt8]) {
        switch self {
        case .string(let string):
            JSONText.append(string, to: &bytes)
        case .number(let number):
            bytes += Array(String(number).utf8)
        case .numberText(let text):
            bytes += Array(text.utf8)
        case .bool(let value):
            bytes += Array((value ? "true" : "false").utf8)
        case .null:
            bytes += Array("null".utf8)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.append(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}
