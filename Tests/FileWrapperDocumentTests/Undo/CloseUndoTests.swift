import FileWrapperDocument
import Testing
import TestSupport

/// Closing a document clears its undo manager, as `NSDocument` does when
/// it closes: nothing can be undone or redone after, and the actions go,
/// with what they capture.
@Suite @MainActor struct CloseUndoTests {
    @Test func closeForgetsWhatCouldBeUndoneAndRedone() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("letter.txt")
        let controller = DocumentController(newDocument: TextDocument(text: "Dear"))
        let undoManager = controller.undoManager
        try await controller.update { $0.text += " Ada" }
        try await controller.update { $0.text += "," }
        undoManager.undo()
        #expect(undoManager.canUndo && undoManager.canRedo)
        try await controller.save(to: url)

        try await controller.close()
        #expect(!undoManager.canUndo && !undoManager.canRedo)
        #expect(try Disk.text(url) == "Dear Ada")
    }

    @Test func closeFreesAnUndoManagerThatItsActionsCapture() async throws {
        weak var closedUndoManager: UndoManager?
        do {
            let controller = DocumentController(newDocument: TextReferenceDocument(text: ""))
            let counter = Counter()
            counter.add(1, undoManager: controller.undoManager)
            counter.add(2, undoManager: controller.undoManager)
            controller.undoManager.undo()
            closedUndoManager = controller.undoManager
            try await controller.close()
        }
        #expect(closedUndoManager == nil, "an action's handler held the undo manager, and the undo manager the action")
    }
}
