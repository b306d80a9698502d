import FileWrapperDocument
import Testing
import TestSupport

/// The Swift 5 document without annotations, edited and undone through
/// the controller's undo manager, saved and reopened; closed at the end,
/// which clears the undo its handlers hold (they capture the undo manager).
@Suite struct TitledNoteTests {
    @MainActor
    @Test func renameUndoRedoAndSave() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Note.json")
        let controller = DocumentController(newDocument: TitledNoteDocument(), contentType: .titledNote)
        let document = await controller.document
        document.setTitle("Groceries", undoManager: controller.undoManager)
        document.setTitle("Shopping", undoManager: controller.undoManager)
        controller.undoManager.undo()
        #expect(document.note.title == "Groceries")
        #expect(controller.undoManager.redoActionName == "Rename")
        try await controller.save(to: url, contentType: .titledNote)

        let reopened = try await DocumentController<TitledNoteDocument>(contentsOf: url, contentType: .titledNote)
        #expect(await reopened.document.note.title == "Groceries")
        try await controller.close()
    }
}
