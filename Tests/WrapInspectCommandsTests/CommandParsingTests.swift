import ArgumentParser
import Testing
@testable import WrapInspectCommands

/// wrapinspect's commands parsed in process, as argument-parser's own
/// tests parse theirs: every example the help shows, the messages of bad
/// usage and of flags that would do nothing, the help itself. What a
/// process adds (the exit status, the streams the text goes to) is
/// WrapInspectTests' ErrorTests.
@Suite struct CommandParsingTests {
    static let commands: [ParsableCommand.Type] = WrapInspect.configuration.subcommands

    /// The command lines of a help text's "Examples:", each cut before a
    /// pipe, a redirection or a note in parentheses, split as a shell
    /// splits them (double and single quotes).
    static func examples(in discussion: String) -> [[String]] {
        guard let start = discussion.range(of: "Examples:") else { return [] }
        return discussion[start.upperBound...].split(separator: "\n").compactMap { line in
            var text = line.drop { $0 == " " }
            guard text.hasPrefix("wrapinspect ") else { return nil }
            for end in [" | ", " > ", "  ("] {
                if let cut = text.range(of: end) { text = text[..<cut.lowerBound] }
            }
            return Array(words(of: String(text)).dropFirst())
        }
    }

    static func words(of line: String) -> [String] {
        var words: [String] = []
        var word: String?
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word?.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                word = word ?? ""
            } else if character == " " {
                if let finished = word { words.append(finished) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        if let finished = word { words.append(finished) }
        return words
    }

    /// Each command's help shows at least one example of itself.
    @Test func everyCommandShowsAnExampleOfItself() {
        for command in Self.commands {
            let name = command.configuration.commandName ?? "?"
            #expect(Self.examples(in: command.configuration.discussion).contains { $0.first == name }, "\(name)")
        }
    }

    /// Each example parses and validates as the command it names (a help
    /// may show another command's example: `versions` shows `diff
    /// --versions-of`).
    @Test func everyExampleInTheHelpParses() throws {
        var parsed = 0
        for command in Self.commands {
            for example in Self.examples(in: command.configuration.discussion) {
                let result = try WrapInspect.parseAsRoot(example)
                #expect(type(of: result).configuration.commandName == example.first, "\(example)")
                parsed += 1
            }
        }
        #expect(parsed >= 25, "the examples were found (\(parsed))")
    }

    @Test func optionsLandWhereTheyBelong() throws {
        let dump = try #require(try WrapInspect.parseAsRoot(["dump", "--digests", "--max-depth", "1", "A.zip"]) as? Dump)
        #expect(dump.path == "A.zip" && dump.digests && dump.maxDepth == 1 && !dump.json)
        let unpack = try #require(try WrapInspect.parseAsRoot(["unpack", "--strip-components", "2", "p.tar.gz"]) as? Unpack)
        #expect(unpack.stripComponents == 2)
        #expect(try unpack.chosenDestination() == "p", "the folder is named after the archive")
    }

    @Test(arguments: [
        (["dump", "--bogus", "Travel.journal"], "Unknown option '--bogus'"),
        (["dump"], "Missing expected argument '<path>'"),
        (["dump", "--max-depth", "-1", "Travel.journal"], "--max-depth must be 0 or more, not -1."),
        (["dump", "--max-depth", "two", "Travel.journal"], "The value 'two' is invalid for '--max-depth <n>'"),
        (["dump", ""], "PATH must not be empty."),
        (["dump", "--json", "--max-depth", "1", "A"], "--max-depth shapes the tree for people; --json and --stored print every entry."),
        (["dump", "Travel.journal", "Other.journal"], "Unexpected argument 'Other.journal'"),
        (["dump", "--max-entries", "0", "A"], "--max-entries must be more than 0."),
        (["pack", "--level", "3", "src", "x.tar"], "--level applies to a compressed format; tar is not compressed"),
        (["pack", "--level", "3", "src", "x.cpio"], "--level applies to a compressed format; cpio is not compressed"),
        (["pack", "--store", "src", "x.tar.gz"], "--store and --first-stored apply to zip archives only."),
        (["unpack", "--strip-components=-1", "a.zip", "out"], "--strip-components must be 0 or more, not -1."),
        (["unpack", "--max-ratio", "0", "a.zip", "out"], "--max-ratio must be more than 0."),
        (["unpack", "--strip-components", "-1", "a.zip", "out"], "Missing value for '--strip-components <n>'"),
        (["diff", "", "B"], "OLD and NEW must not be empty."),
        (["diff", "--find-renames", "0", "A", "B"], "--find-renames must be from 1 to 100."),
    ])
    func badUsageSaysWhatIsWrongThenTheUsage(arguments: [String], message: String) {
        #expect(throws: (any Error).self, "\(arguments)") { try WrapInspect.parseAsRoot(arguments) }
        do {
            _ = try WrapInspect.parseAsRoot(arguments)
        } catch {
            #expect(WrapInspect.exitCode(for: error) == .validationFailure, "\(arguments)")
            let lines = WrapInspect.badUsageText(for: error).split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first.map { $0.hasPrefix(message) } == true, "\(arguments): \(lines.first ?? "")")
            #expect(lines.contains { $0.hasPrefix("Usage: wrapinspect \(arguments[0])") }, "\(arguments): \(lines)")
        }
    }

    @Test(arguments: [
        ("dupm", "'dupm' is not a wrapinspect command; did you mean 'dump'?"),
        ("unpakc", "'unpakc' is not a wrapinspect command; did you mean 'unpack'?"),
        ("versoins", "'versoins' is not a wrapinspect command; did you mean 'versions'?"),
        ("xyzzy", "'xyzzy' is not a wrapinspect command; the commands are dump, snapshot, digest, diff, verify, cat, pack, unpack, versions, help."),
    ])
    func aMistypedCommandGetsDidYouMean(typed: String, message: String) throws {
        let text = try #require(WrapInspect.unknownCommandMessage([typed, "x"]))
        #expect(text.hasPrefix(message), "\(text)")
        #expect(text.hasSuffix("Usage: wrapinspect <subcommand>\n  See 'wrapinspect --help' for more information."))
    }

    @Test func aCommandOrAnOptionFirstIsNoMistake() {
        for command in Self.commands {
            #expect(WrapInspect.unknownCommandMessage([command.configuration.commandName ?? "", "x"]) == nil)
        }
        #expect(WrapInspect.unknownCommandMessage(["help", "dump"]) == nil)
        #expect(WrapInspect.unknownCommandMessage(["--version"]) == nil)
        #expect(WrapInspect.unknownCommandMessage([]) == nil)
    }

    /// Every command's help names its usage and every option it takes, and
    /// its text fits 80 columns, the width a terminal starts with (the
    /// usage line, which argument-parser never wraps, aside).
    @Test func everyCommandsHelpShowsItsUsageWithin80Columns() {
        for command in Self.commands {
            let name = command.configuration.commandName ?? "?"
            let help = WrapInspect.helpMessage(for: command, columns: 80)
            #expect(help.contains("USAGE: wrapinspect \(name)"), "\(name)")
            #expect(help.contains("--help"), "\(name)")
            let wide = help.split(separator: "\n").filter { $0.count > 80 && !$0.hasPrefix("USAGE: ") }
            #expect(wide.isEmpty, "\(name): \(wide)")
        }
        let root = WrapInspect.helpMessage(columns: 80)
        for command in Self.commands {
            #expect(root.contains(command.configuration.commandName ?? "?"))
        }
    }
}
