import FileWrapperDocument
import Foundation

// A package document written as for SwiftUI: an index and one file per
// note in a directory; saving reuses the unchanged files of
// `existingFile`, so that only the changed ones are written. The same tree
// is also stored as a zip container.

extension UTType {
    static let notesPackage = UTType(exportedAs: "com.example.notes", conformingTo: .package)
    static let notesArchive = UTType(exportedAs: "com.example.notes-archive", conformingTo: .zip)
}

struct NotesDocument: FileDocument {
    struct Index: Codable, Equatable {
        var title: String
        var noteIDs: [String]
    }

    static var readableContentTypes: [UTType] { [.notesPackage, .notesArchive] }

    var index: Index
    var notes: [String: String]

    init(title: String = "Notes") {
        index = Index(title: title, noteIDs: [])
        notes = [:]
    }

    mutating func setNote(_ id: String, _ text: String) {
        if notes[id] == nil { index.noteIDs.append(id) }
        notes[id] = text
    }

    init(configuration: ReadConfiguration) throws {
        guard let files = configuration.file.fileWrappers,
              let indexData = files["index.json"]?.regularFileContents
        else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedFailureReasonErrorKey: "The notes package has no index.json."])
        }
        index = try JSONDecoder().decode(Index.self, from: indexData)
        let noteFiles = files["Notes"]?.fileWrappers ?? [:]
        notes = [:]
        for id in index.noteIDs {
            guard let data = noteFiles["\(id).txt"]?.regularFileContents,
                  let text = String(data: data, encoding: .utf8)
            else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedFailureReasonErrorKey: "The note \(id) is missing."])
            }
            notes[id] = text
        }
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let existing = configuration.existingFile?.fileWrappers?["Notes"]?.fileWrappers ?? [:]
        var noteFiles: [String: FileWrapper] = [:]
        for id in index.noteIDs {
            let name = "\(id).txt"
            let data = Data(notes[id, default: ""].utf8)
            if let old = existing[name], old.regularFileContents == data {
                noteFiles[name] = old
            } else {
                noteFiles[name] = FileWrapper(regularFileWithContents: data)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let indexData = try encoder.encode(index)
        var indexFile = FileWrapper(regularFileWithContents: indexData)
        if let old = configuration.existingFile?.fileWrappers?["index.json"], old.regularFileContents == indexData {
            indexFile = old
        }
        return FileWrapper(directoryWithFileWrappers: [
            "index.json": indexFile,
            "Notes": FileWrapper(directoryWithFileWrappers: noteFiles),
        ])
    }
}
