import FileWrapperDocument
import Testing
import TestSupport

/// A value document's edits through the controller register their undo,
/// as SwiftUI registers it whenever a `FileDocument`'s value changes; undo
/// on the main actor puts the value back, and the controller counts it.
@Suite @MainActor struct ValueUndoTests {
    @Test func anEditIsUndoneAndRedoneAndTheSavedVersionIsKnownAgain() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("letter.txt")
        try await DocumentController(newDocument: TextDocument(text: "Dear")).save(to: url)
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        let undoManager = controller.undoManager

        try await controller.update { $0.text += " Ada" }
        try await controller.update { $0.text += "," }
        #expect(undoManager.canUndo)
        undoManager.undo()
        #expect(await controller.document.text == "Dear Ada")
        undoManager.undo()
        #expect(await controller.document.text == "Dear")
        #expect(await !controller.hasUnsavedChanges, "undone back to the version opened")
        #expect(!undoManager.canUndo)

        undoManager.redo()
        #expect(await controller.document.text == "Dear Ada")
        #expect(await controller.hasUnsavedChanges)
        try await controller.save()
        #expect(try Disk.text(url) == "Dear Ada")

        try await controller.update { $0.text = "Hello" }
        #expect(!undoManager.canRedo, "a new edit clears what could be redone")
        undoManager.undo()
        #expect(await controller.document.text == "Dear Ada")
        #expect(await !controller.hasUnsavedChanges)
        #expect(try await controller.autosave() == false)
    }

    @Test func editsAndMainActorChangesKeepTheirOrder() async throws {
        let controller = DocumentController(newDocument: TextDocument(text: ""))
        let undoManager = controller.undoManager
        try await controller.update { $0.text = "a" }
        undoManager.undo()
        #expect(await controller.document.text == "")
        try await controller.update { $0.text = "b" }
        try await controller.update { $0.text = "bc" }
        undoManager.undo()
        undoManager.undo()
        #expect(await controller.document.text == "")
        #expect(!undoManager.canUndo)
        #expect(await controller.changeCount == 6)
    }

    @Test func theControllerKeepsTheLastHundredChanges() async throws {
        let controller = DocumentController(newDocument: TextDocument(text: ""))
        for number in 1...150 {
            try await controller.update { $0.text = "\(number)" }
        }
        let undoManager = controller.undoManager
        #expect(undoManager.levelsOfUndo == 100)
        var undone = 0
        while undoManager.canUndo {
            undoManager.undo()
            undone += 1
        }
        #expect(undone == 100)
        #expect(await controller.document.text == "50")
    }

    @Test func aReferenceDocumentsEditsRegisterNothing() async throws {
        let controller = DocumentController(newDocument: TextReferenceDocument(text: "x"))
        try await controller.update { $0.text = "y" }
        #expect(!controller.undoManager.canUndo, "a reference document registers its own undo")
        #expect(await controller.hasUnsavedChanges)
    }
}
