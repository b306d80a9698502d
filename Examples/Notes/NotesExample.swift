import ArgumentParser
import FileWrapperDocument
import Foundation

/// `notes-example`: a document app without a user interface. Each command
/// opens a ``NotesDocument`` with a `DocumentController`, reads or edits
/// it, saves, and exits.
///
/// Exit status: 0 success, 2 an error (which names the file) or bad usage.
@main
struct NotesExample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes-example",
        abstract: "Keep notes in a notes package: an index and one file per note.",
        discussion: """
            A notes package (.notes) is a directory; its zip form (.notesz) is \
            one file. Every command takes either.

            Examples:
              notes-example create Trip.notes
              notes-example add Trip.notes "Day 1" "Arrived in Lisbon."
              notes-example list Trip.notes
              notes-example show Trip.notes 1
              notes-example export Trip.notes Trip.notesz
            """,
        subcommands: [Create.self, Add.self, List.self, Show.self, Export.self]
    )

    /// Registers the notes types, then parses and runs the command as
    /// ArgumentParser's `main()` does, except that an error or bad usage
    /// prints its message and exits with status 2.
    static func main() async {
        do {
            try UTType.registerNotesTypes()
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) != .success else { exit(withError: error) }  // --help
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}

/// The notes document a command works on.
struct NotesPath: ParsableArguments {
    @Argument(help: "The notes: a package (.notes) or its zip form (.notesz).")
    var path: String

    var url: URL { URL(fileURLWithPath: path) }

    /// Opens the notes; the content type follows from the extension.
    func open(isEditable: Bool = true) async throws -> DocumentController<NotesDocument> {
        try await DocumentController(contentsOf: url, isEditable: isEditable)
    }
}

/// A refusal of the example's own, naming the file as the library's errors do.
struct NotesError: Error, CustomStringConvertible {
    var description: String

    init(_ url: URL, _ message: String) {
        description = "\"\(url.standardizedFileURL.path)\": \(message)"
    }
}

extension NotesDocument {
    /// The type that `url`'s extension names: a package or a zip container.
    static func contentType(for url: URL) throws -> UTType {
        guard let type = UTType(filenameExtension: url.pathExtension, conformingTo: .item), writableContentTypes.contains(type) else {
            throw NotesError(url, "is not a notes file name: end it in .notes (a package) or .notesz (a zip container)")
        }
        return type
    }
}
