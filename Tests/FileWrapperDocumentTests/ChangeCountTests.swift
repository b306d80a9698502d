import FileWrapperDocument
import Foundation
import Testing
import TestSupport

/// Issue 37, item 4: changes that register no undo are counted as
/// `UIDocument.updateChangeCount(_:)` counts them; a document can be
/// closed without saving; a closed document refuses, never traps.
@Suite struct ChangeCountTests {
    @Test func aChangeWithoutUndoIsSavedOnceCounted() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Counted.txt")
        try Disk.write("before", to: url)
        let controller = try await DocumentController<TextReferenceDocument>(contentsOf: url)

        let document = await controller.document
        document.text = "changed without undo"
        #expect(await !controller.hasUnsavedChanges)
        #expect(try await controller.autosave() == false, "nothing counted, nothing saved")

        try await controller.updateChangeCount(.done)
        #expect(await controller.hasUnsavedChanges)
        #expect(try await controller.autosave())
        #expect(try Disk.text(url) == "changed without undo")
        #expect(await !controller.hasUnsavedChanges)
    }

    @Test func doneUndoneRedoneAndClearedMoveTheCount() async throws {
        let controller = DocumentController(newDocument: TextReferenceDocument(text: "new"))
        let before = await controller.changeCount

        try await controller.updateChangeCount(.done)
        #expect(await controller.hasUnsavedChanges)
        try await controller.updateChangeCount(.undone)
        #expect(await !controller.hasUnsavedChanges, "undone back to the saved version")
        try await controller.updateChangeCount(.redone)
        #expect(await controller.hasUnsavedChanges)
        try await controller.updateChangeCount(.cleared)
        #expect(await !controller.hasUnsavedChanges)
        #expect(await controller.changeCount == before + 3)
    }

    @Test func closeWithoutSavingDropsTheChanges() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Discarded.txt")
        try Disk.write("kept", to: url)
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        try await controller.update { $0.text = "dropped" }

        try await controller.close(saving: false)

        #expect(await controller.isClosed)
        #expect(try Disk.text(url) == "kept")
        #expect(try Disk.names(in: directory.url) == ["Discarded.txt"])
    }

    /// In this process: a trap would end the test run.
    @Test func aClosedDocumentRefusesWithClosedAndNeverTraps() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Closed.txt")
        try Disk.write("closed", to: url)
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        try await controller.close()

        let edit = try await #require(throws: DocumentError.self) { try await controller.update { $0.text = "after close" } }
        #expect(edit.code == .closed)
        #expect(await controller.document.text == "closed", "an edit after close changes nothing")
        #expect(await !controller.hasUnsavedChanges)
        let error = try await #require(throws: DocumentError.self) { try await controller.save() }
        #expect(error.code == .closed)
        #expect(error.description == "\"\(url.path)\": is closed")
        let counted = try await #require(throws: DocumentError.self) { try await controller.updateChangeCount(.done) }
        #expect(counted.code == .closed)
        await #expect(throws: DocumentError.self) { try await controller.revert() }
        #expect(try await controller.autosave() == false)
        try await controller.close(saving: true)
        #expect(try Disk.text(url) == "closed")
    }
}
