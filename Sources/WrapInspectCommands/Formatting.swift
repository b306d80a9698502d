import FileWrapperKit
import Foundation

/// Text for people: modes, sizes and names as the commands print them.
enum Format {
    /// The kind and permission bits as `ls -l` shows them: `drwxr-xr-x`,
    /// `-rwsr-x--T`. `kind` is `d`, `-` or `l`.
    static func mode(kind: Character, permissions: UInt16) -> String {
        func triple(_ bits: UInt16, special: Bool, set: Character, unset: Character) -> String {
            let read: Character = bits & 4 != 0 ? "r" : "-"
            let write: Character = bits & 2 != 0 ? "w" : "-"
            let execute: Character = switch (bits & 1 != 0, special) {
            case (true, true): set
            case (false, true): unset
            case (true, false): "x"
            case (false, false): "-"
            }
            return String([read, write, execute])
        }
        return String(kind)
            + triple(permissions >> 6 & 7, special: permissions & 0o4000 != 0, set: "s", unset: "S")
            + triple(permissions >> 3 & 7, special: permissions & 0o2000 != 0, set: "s", unset: "S")
            + triple(permissions & 7, special: permissions & 0o1000 != 0, set: "t", unset: "T")
    }

    /// A size in binary units with one decimal: `812 B`, `1.0 KiB`, `268.7 KiB`, `5.0 GiB`.
    static func size(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        // Move up a unit when the value would round to 1024.0 or more.
        while (value * 10).rounded() >= 10240, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// `count` with the singular or plural noun: `1 file`, `3 files`.
    static func count(_ count: Int64, _ singular: String, _ plural: String) -> String {
        "\(count) \(count == 1 ? singular : plural)"
    }

    /// A name or path as it is, unless it holds bytes that are not UTF-8,
    /// a control character (a newline, an escape) or a backslash: then those
    /// are escaped (`\xFF`, `\u{A}`, `\\`) so that one entry stays one line,
    /// no name can drive the terminal, and two names never print alike.
    static func name(_ bytes: some Collection<UInt8>) -> String {
        PathDisplay.text(bytes)
    }
}

/// Writes `wrapinspect: <message>` and a newline to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("wrapinspect: \(message)\n".utf8))
}
