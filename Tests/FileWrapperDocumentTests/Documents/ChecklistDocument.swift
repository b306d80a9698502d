import FileWrapperDocument
import Foundation

// A Codable model stored as JSON in a flat file, written as for SwiftUI.

struct Checklist: Codable, Equatable {
    struct Item: Codable, Equatable {
        var title: String
        var isDone: Bool
    }

    var title: String
    var items: [Item]
}

struct ChecklistDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.json] }

    var checklist: Checklist

    init(checklist: Checklist = Checklist(title: "Untitled", items: [])) {
        self.checklist = checklist
    }

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else {
            throw CocoaError(.fileReadCorruptFile)
        }
        checklist = try JSONDecoder().decode(Checklist.self, from: data)
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return FileWrapper(regularFileWithContents: try encoder.encode(checklist))
    }
}
