import FileWrapperDocument
import Testing
import TestSupport

/// The reference document: edited on the main actor through methods that
/// register undo with the controller's undo manager, as SwiftUI's views
/// call them; the controller counts those changes and saves them. Each
/// test closes its controllers at the end, as an app closes its document:
/// the model's undo handlers capture the undo manager, and closing clears
/// it, so nothing outlives the test.
@Suite @MainActor struct ChecklistScenarioTests {
    @Test func createSaveReopenEditUndoAndSaveAgain() async throws {
        ExampleTypes.register()
        let directory = try TemporaryDirectory()
        let url = directory.appending("Groceries.checklist")

        let controller = DocumentController(newDocument: ChecklistDocument())
        let document = await controller.document
        document.addItem(titled: "Apples", undoManager: controller.undoManager)
        document.addItem(titled: "Bread", undoManager: controller.undoManager)
        document.addItem(titled: "Cheese", undoManager: controller.undoManager)
        #expect(controller.undoManager.undoActionName == "Add Item")
        #expect(await controller.hasUnsavedChanges)
        #expect(await controller.changeCount == 3)
        try await controller.save(to: url)
        #expect(await !controller.hasUnsavedChanges)

        let reopened = try await DocumentController<ChecklistDocument>(contentsOf: url)
        let checklist = await reopened.document
        #expect(checklist.checklist.items.map(\.title) == ["Apples", "Bread", "Cheese"])
        let undoManager = reopened.undoManager
        #expect(!undoManager.canUndo, "a document opened has nothing to undo")

        checklist.toggleItem(checklist.checklist.items[1], undoManager: undoManager)
        checklist.moveItems(fromOffsets: [2], toOffset: 0, undoManager: undoManager)
        checklist.deleteItems(atOffsets: [1], undoManager: undoManager)
        #expect(checklist.checklist.items.map(\.title) == ["Cheese", "Bread"])
        #expect(await reopened.hasUnsavedChanges)

        undoManager.undo()
        #expect(checklist.checklist.items.map(\.title) == ["Cheese", "Apples", "Bread"])
        #expect(undoManager.redoActionName == "Delete")
        undoManager.undo()
        undoManager.undo()
        #expect(checklist.checklist.items.map(\.title) == ["Apples", "Bread", "Cheese"])
        #expect(checklist.checklist.items.allSatisfy { !$0.isChecked })
        #expect(await !reopened.hasUnsavedChanges, "undone back to the version opened")
        #expect(try await reopened.autosave() == false)

        undoManager.redo()
        #expect(await reopened.hasUnsavedChanges, "redone away from it")
        #expect(try await reopened.autosave())
        #expect(await !reopened.hasUnsavedChanges)

        undoManager.undo()
        #expect(await reopened.hasUnsavedChanges, "undone past the version saved")
        try await reopened.save()

        let third = try await DocumentController<ChecklistDocument>(contentsOf: url).document
        #expect(third.checklist == checklist.checklist)
        #expect(third.checklist.items.allSatisfy { !$0.isChecked })
        try await controller.close()
        try await reopened.close()
    }

    @Test func aNewChangeAfterUndoingPastTheSavedVersionLeavesItUnreachable() async throws {
        let directory = try TemporaryDirectory()
        let controller = DocumentController(newDocument: ChecklistDocument(), contentType: .checklist)
        let document = await controller.document
        let undoManager = controller.undoManager
        document.addItem(titled: "One", undoManager: undoManager)
        try await controller.save(to: directory.appending("List.checklist"))
        undoManager.undo()
        document.addItem(titled: "Two", undoManager: undoManager)
        undoManager.undo()
        #expect(document.checklist.items.isEmpty)
        #expect(await controller.hasUnsavedChanges, "the saved version had One, which redo can no longer reach")
        undoManager.redo()
        #expect(document.checklist.items.map(\.title) == ["Two"])
        #expect(await controller.hasUnsavedChanges)
        #expect(!undoManager.canRedo)
        try await controller.close()
    }

    @Test func undoAndRedoPublishTheChangeAsEditsDo() async throws {
        let controller = DocumentController(newDocument: ChecklistDocument(), contentType: .checklist)
        let document = await controller.document
        var published: [[String]] = []
        let subscription = document.$checklist.sink { checklist in
            published.append(checklist.items.map(\.title))
        }
        document.addItem(titled: "Milk", undoManager: controller.undoManager)
        document.addItem(titled: "Tea", undoManager: controller.undoManager)
        controller.undoManager.undo()
        controller.undoManager.redo()
        #expect(published == [[], ["Milk"], ["Milk", "Tea"], ["Milk"], ["Milk", "Tea"]])
        subscription.cancel()
        try await controller.close()
    }

    @Test func revertForgetsWhatCouldBeUndone() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("List.checklist")
        let controller = DocumentController(newDocument: ChecklistDocument(), contentType: .checklist)
        await controller.document.addItem(titled: "Kept", undoManager: controller.undoManager)
        try await controller.save(to: url)
        await controller.document.addItem(titled: "Dropped", undoManager: controller.undoManager)
        try await controller.revert()
        #expect(await controller.document.checklist.items.map(\.title) == ["Kept"])
        #expect(!controller.undoManager.canUndo)
        #expect(await !controller.hasUnsavedChanges)
    }

    @Test func aCorruptFileIsRefusedWithCocoaError() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Broken.checklist")
        try Disk.write("{\"items\": [", to: url)
        let error = await #expect(throws: DocumentError.self) {
            _ = try await DocumentController<ChecklistDocument>(contentsOf: url, contentType: .checklist)
        }
        #expect(error?.code == .documentRefused)
        #expect(error?.description.contains("Broken.checklist") == true)
    }
}
