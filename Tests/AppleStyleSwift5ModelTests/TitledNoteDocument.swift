import FileWrapperDocument

// A reference document written as Apple's Swift 5 samples write one, with
// no concurrency annotations: not @MainActor, not @unchecked Sendable; its
// methods register undo from wherever a view calls them.

extension UTType {
    static var titledNote: UTType {
        UTType(exportedAs: "com.example.titled-note", conformingTo: .json)
    }
}

struct TitledNote: Codable, Equatable {
    var title = "Untitled"
    var body = ""
}

final class TitledNoteDocument: ReferenceFileDocument {
    @Published var note: TitledNote

    static var readableContentTypes: [UTType] { [.titledNote] }

    init(note: TitledNote = TitledNote()) {
        self.note = note
    }

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else {
            throw CocoaError(.fileReadCorruptFile)
        }
        note = try JSONDecoder().decode(TitledNote.self, from: data)
    }

    func snapshot(contentType: UTType) throws -> TitledNote {
        note
    }

    func fileWrapper(snapshot: TitledNote, configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: try JSONEncoder().encode(snapshot))
    }

    func setTitle(_ title: String, undoManager: UndoManager?) {
        let oldTitle = note.title
        note.title = title
        undoManager?.registerUndo(withTarget: self) { document in
            document.setTitle(oldTitle, undoManager: undoManager)
        }
        undoManager?.setActionName("Rename")
    }
}
