import FileWrapperDocument
import Foundation

/// A notes package, written as for a SwiftUI document app: `index.json`
/// (the title and the notes in order) and one file per note,
/// `Notes/<id>.txt`. The same tree is stored as a directory (`.notes`) or
/// a zip container (`.notesz`), as the content type says.
struct NotesDocument: FileDocument {
    struct Index: Codable {
        struct Entry: Codable {
            var id: Int
            var title: String
        }

        var title: String
        var notes: [Entry]
    }

    static var readableContentTypes: [UTType] { [.notes, .notesArchive] }

    var index: Index
    /// Each note's text, by id.
    var bodies: [Int: String]

    init(title: String) {
        index = Index(title: title, notes: [])
        bodies = [:]
    }

    /// Appends a note and returns its id.
    mutating func add(title: String, body: String) -> Int {
        let id = (index.notes.map(\.id).max() ?? 0) + 1
        index.notes.append(.init(id: id, title: title))
        bodies[id] = body
        return id
    }

    init(configuration: ReadConfiguration) throws {
        guard let indexData = configuration.file.fileWrappers?["index.json"]?.regularFileContents else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedFailureReasonErrorKey: "The notes package has no index.json."])
        }
        index = try JSONDecoder().decode(Index.self, from: indexData)
        let files = configuration.file.fileWrappers?["Notes"]?.fileWrappers ?? [:]
        bodies = [:]
        for note in index.notes {
            guard let data = files["\(note.id).txt"]?.regularFileContents else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedFailureReasonErrorKey: "Note \(note.id) has no file."])
            }
            bodies[note.id] = String(decoding: data, as: UTF8.self)
        }
    }

    /// The package, reusing the note files of `existingFile` whose text did
    /// not change: saving in place then writes only the new or changed
    /// notes and the index.
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let existing = configuration.existingFile?.fileWrappers?["Notes"]?.fileWrappers ?? [:]
        var files: [String: FileWrapper] = [:]
        for note in index.notes {
            let name = "\(note.id).txt"
            let data = Data(bodies[note.id, default: ""].utf8)
            if let old = existing[name], old.regularFileContents == data {
                files[name] = old
            } else {
                files[name] = FileWrapper(regularFileWithContents: data)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return FileWrapper(directoryWithFileWrappers: [
            "index.json": FileWrapper(regularFileWithContents: try encoder.encode(index)),
            "Notes": FileWrapper(directoryWithFileWrappers: files),
        ])
    }
}
