import Glibc

/// How many columns a terminal has and text takes on it, so that a
/// progress line never wraps (a wrapped line cannot be erased with one
/// carriage return).
enum TerminalWidth {
    /// The columns of the terminal on `fd` (`ioctl` TIOCGWINSZ), read
    /// again at every drawing so that a resized window is followed; nil
    /// when it does not say (not a terminal, or a size of 0).
    static func columns(of fd: CInt) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The columns `character` takes: two for the wide characters of East
    /// Asian scripts and for emoji, none for a control character, else one.
    static func columns(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { return 0 }
        return wide.contains { $0.contains(scalar.value) } ? 2 : 1
    }

    /// The columns `text` takes.
    static func columns(of text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// `text` if it fits in `columns`; else its start, cut to leave room
    /// for a closing "…".
    static func truncated(_ text: String, to columns: Int) -> String {
        guard Self.columns(of: text) > columns else { return text }
        return String(prefix(of: text[...], columns: max(columns - 1, 0))) + "…"
    }

    /// `text` if it fits in `columns`; else its start and end with "…"
    /// between them, for a name whose two ends say most.
    static func shortenedInTheMiddle(_ text: String, to columns: Int) -> String {
        guard Self.columns(of: text) > columns else { return text }
        guard columns > 1 else { return columns == 1 ? "…" : "" }
        let room = columns - 1
        let head = prefix(of: text[...], columns: (room + 1) / 2)
        let tail = String(prefix(of: Substring(text.reversed()), columns: room / 2).reversed())
        return head + "…" + tail
    }

    /// The longest start of `text` that fits in `columns`.
    private static func prefix(of text: Substring, columns: Int) -> Substring {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            used += Self.columns(of: text[index])
            guard used <= columns else { break }
            end = text.index(after: index)
        }
        return text[..<end]
    }

    /// Code points that take two columns (Unicode's East Asian Wide and
    /// Fullwidth ranges, and the emoji blocks).
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD,
    ]
}
