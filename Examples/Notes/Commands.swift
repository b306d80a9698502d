import ArgumentParser
import FileWrapperDocument
import Foundation

struct Create: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create empty notes.")

    @OptionGroup var notes: NotesPath

    @Option(help: "The notes' title (default: the file's name without its extension).")
    var title: String?

    func run() async throws {
        let type = try NotesDocument.contentType(for: notes.url)
        guard !FileManager.default.fileExists(atPath: notes.url.path) else {
            throw NotesError(notes.url, "already exists")
        }
        let document = NotesDocument(title: title ?? notes.url.deletingPathExtension().lastPathComponent)
        try await DocumentController(newDocument: document).save(to: notes.url, contentType: type)
        print("Created \(notes.path).")
    }
}

struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add a note.",
        discussion: "In a package, only the new note's file and the index are written.")

    @OptionGroup var notes: NotesPath

    @Argument(help: "The note's title.")
    var title: String

    @Argument(help: "The note's text.")
    var text: String

    func run() async throws {
        let controller = try await notes.open()
        let id = try await controller.update { $0.add(title: title, body: text) }
        try await controller.save()
        print("Added note \(id) to \(notes.path).")
    }
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the notes: id and title.")

    @OptionGroup var notes: NotesPath

    func run() async throws {
        let index = try await notes.open(isEditable: false).document.index
        print("\(index.title): \(index.notes.count) note\(index.notes.count == 1 ? "" : "s")")
        for note in index.notes {
            print("\(note.id)  \(note.title)")
        }
    }
}

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a note.")

    @OptionGroup var notes: NotesPath

    @Argument(help: "The note's id, as list shows it.")
    var id: Int

    func run() async throws {
        let document = try await notes.open(isEditable: false).document
        guard let note = document.index.notes.first(where: { $0.id == id }), let text = document.bodies[id] else {
            throw NotesError(notes.url, "has no note \(id)")
        }
        print(note.title, text, separator: "\n\n")
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save a copy: a zip container (.notesz) or a package (.notes).",
        discussion: "The notes stay where they are; an existing copy is replaced.")

    @OptionGroup var notes: NotesPath

    @Argument(help: "Where to save the copy.")
    var destination: String

    func run() async throws {
        let url = URL(fileURLWithPath: destination)
        let type = try NotesDocument.contentType(for: url)
        try await notes.open(isEditable: false).saveCopy(to: url, contentType: type)
        print("Saved a copy of \(notes.path) as \(destination).")
    }
}
