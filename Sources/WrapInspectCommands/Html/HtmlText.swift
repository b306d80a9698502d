import FileWrapperKit

/// Text for an HTML page, escaped so that nothing from a name or a file's
/// contents can become markup: `&`, `<`, `>`, `"` and `'` as entities.
enum HtmlText {
    /// `text` escaped for an element's content or a quoted attribute.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// A name or path (bytes): as wrapinspect prints it (bytes that are not
    /// UTF-8 and control characters escaped, `\xFF`), then escaped for HTML.
    static func name(_ bytes: some Collection<UInt8>) -> String {
        escaped(bytes.isEmpty ? "." : PathDisplay.text(bytes))
    }

    /// A line of a file's contents: as it is when UTF-8 without control
    /// characters but tabs, else with the rest escaped as names are.
    static func line(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self),
           !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
            return escaped(text)
        }
        return escaped(PathDisplay.text(bytes))
    }
}
