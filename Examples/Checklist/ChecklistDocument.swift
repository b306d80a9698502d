import FileWrapperDocument

// A checklist kept as a reference document, written as Apple's
// document-app samples write one for SwiftUI, with `import
// FileWrapperDocument` in place of `import SwiftUI` and `import
// UniformTypeIdentifiers`: a class with a @Published model, edited on the
// main actor by methods that register their undo with the undo manager a
// view passes (here, the DocumentController's). Registering undo is what
// tells the document it changed.
//
// `@unchecked Sendable`, as Swift 6 projects write it on Apple's systems
// too: the class's state is a mutable @Published property, touched on the
// main actor, and the snapshot a save takes is a value.

extension UTType {
    nonisolated static var checklist: UTType {
        UTType(exportedAs: "com.example.checklist", conformingTo: .json)
    }
}

nonisolated struct ChecklistItem: Identifiable, Codable, Hashable {
    var id = UUID()
    var title: String
    var isChecked = false
}

nonisolated struct Checklist: Codable, Equatable {
    var items: [ChecklistItem] = []
}

final class ChecklistDocument: ReferenceFileDocument, @unchecked Sendable {
    typealias Snapshot = Checklist

    @Published var checklist: Checklist

    static var readableContentTypes: [UTType] { [.checklist] }

    init(checklist: Checklist = Checklist()) {
        self.checklist = checklist
    }

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else {
            throw CocoaError(.fileReadCorruptFile)
        }
        checklist = try JSONDecoder().decode(Checklist.self, from: data)
    }

    func snapshot(contentType: UTType) throws -> Checklist {
        checklist
    }

    func fileWrapper(snapshot: Checklist, configuration: WriteConfiguration) throws -> FileWrapper {
        let data = try JSONEncoder().encode(snapshot)
        return FileWrapper(regularFileWithContents: data)
    }
}

extension ChecklistDocument {
    @MainActor
    func addItem(titled title: String, undoManager: UndoManager? = nil) {
        let item = ChecklistItem(title: title)
        checklist.items.append(item)
        undoManager?.registerUndo(withTarget: self) { document in
            document.deleteItem(withID: item.id, undoManager: undoManager)
        }
        undoManager?.setActionName("Add Item")
    }

    @MainActor
    func deleteItem(withID id: ChecklistItem.ID, undoManager: UndoManager? = nil) {
        guard let index = checklist.items.firstIndex(where: { $0.id == id }) else { return }
        deleteItems(atOffsets: IndexSet(integer: index), undoManager: undoManager)
    }

    @MainActor
    func deleteItems(atOffsets offsets: IndexSet, undoManager: UndoManager? = nil) {
        let oldItems = checklist.items
        checklist.items.remove(atOffsets: offsets)
        undoManager?.registerUndo(withTarget: self) { document in
            document.replaceItems(with: oldItems, undoManager: undoManager)
        }
        undoManager?.setActionName("Delete")
    }

    @MainActor
    func moveItems(fromOffsets source: IndexSet, toOffset destination: Int, undoManager: UndoManager? = nil) {
        let oldItems = checklist.items
        checklist.items.move(fromOffsets: source, toOffset: destination)
        undoManager?.registerUndo(withTarget: self) { document in
            document.replaceItems(with: oldItems, undoManager: undoManager)
        }
        undoManager?.setActionName("Move")
    }

    @MainActor
    func toggleItem(_ item: ChecklistItem, undoManager: UndoManager? = nil) {
        guard let index = checklist.items.firstIndex(where: { $0.id == item.id }) else { return }
        checklist.items[index].isChecked.toggle()
        undoManager?.registerUndo(withTarget: self) { document in
            document.toggleItem(item, undoManager: undoManager)
        }
    }

    @MainActor
    func replaceItems(with newItems: [ChecklistItem], undoManager: UndoManager? = nil) {
        let oldItems = checklist.items
        checklist.items = newItems
        undoManager?.registerUndo(withTarget: self) { document in
            document.replaceItems(with: oldItems, undoManager: undoManager)
        }
    }
}
