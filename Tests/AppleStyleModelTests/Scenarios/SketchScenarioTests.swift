import FileWrapperDocument
import Testing
import TestSupport

/// The flat JSON value document with CoreGraphics geometry, whose edits
/// through the controller are undone on the main actor.
@Suite @MainActor struct SketchScenarioTests {
    @Test func createSaveReopenEditAndSaveAgain() async throws {
        ExampleTypes.register()
        let directory = try TemporaryDirectory()
        let url = directory.appending("Plan.shapesketch")
        let square = Shape(kind: .rectangle, origin: CGPoint(x: 1.5, y: -2), size: CGSize(width: 10, height: 10))

        let controller = DocumentController(newDocument: SketchDocument(shapes: [square]))
        try await controller.save(to: url)
        #expect(await controller.contentType == .sketch)

        let reopened = try await DocumentController<SketchDocument>(contentsOf: url)
        #expect(await reopened.document.shapes == [square])
        let circle = Shape(kind: .ellipse, origin: .zero, size: CGSize(width: 3, height: 4.25))
        try await reopened.update { $0.shapes.append(circle) }
        try await reopened.update { $0.shapes.move(fromOffsets: [1], toOffset: 0) }
        #expect(await reopened.document.shapes == [circle, square])
        reopened.undoManager.undo()
        #expect(await reopened.document.shapes == [square, circle])
        #expect(await reopened.hasUnsavedChanges)
        try await reopened.save()

        let third = try await DocumentController<SketchDocument>(contentsOf: url)
        let shapes = await third.document.shapes
        #expect(shapes == [square, circle])
        #expect(shapes[0].frame.maxX == 11.5)
    }

    @Test func aFileThatIsNotASketchIsRefusedWithCocoaError() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Notes.shapesketch")
        try Disk.write("not json", to: url)
        let error = await #expect(throws: DocumentError.self) {
            _ = try await DocumentController<SketchDocument>(contentsOf: url, contentType: .sketch)
        }
        #expect(error?.code == .documentRefused)
        #expect((error?.underlying as? CocoaError)?.code == .fileReadCorruptFile)
    }
}
