import ArgumentParser
import Foundation

/// `--color auto|always|never`: whether to colour text for a terminal.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    /// Colour when standard output is a terminal, unless `NO_COLOR` is set
    /// to anything but the empty string (https://no-color.org) or `TERM` is `dumb`.
    case auto
    /// Colour whatever standard output is and whatever `NO_COLOR` says.
    case always
    case never

    /// Whether to colour standard output, given the environment and whether
    /// standard output is a terminal (`isatty(1)`).
    func colorsOutput(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        outputIsTerminal: Bool = isatty(STDOUT_FILENO) == 1
    ) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto: outputIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        }
    }
}

/// The SGR escape sequences the commands colour with.
enum ANSIColor: String {
    case red = "31", green = "32", yellow = "33", blue = "34", magenta = "35", cyan = "36", bold = "1"

    /// `text` wrapped in this colour and a reset.
    func wrap(_ text: String) -> String {
        "\u{1B}[\(rawValue)m\(text)\u{1B}[0m"
    }
}
