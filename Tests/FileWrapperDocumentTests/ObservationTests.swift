import FileWrapperDocument
import FileWrapperKit
import Foundation
import Testing

/// A reference document is an `ObservableObject`, as under SwiftUI: its
/// `@Published` properties announce edits made through the controller.
@Suite struct ObservationTests {
    @Test func anEditThroughTheControllerFiresObjectWillChangeBeforeTheChange() async throws {
        let document = TextReferenceDocument(text: "before")
        let controller = DocumentController(newDocument: document)
        let seen = TextLog()
        let subscription = document.objectWillChange.sink { seen.append(document.text) }
        defer { subscription.cancel() }

        try await controller.update { $0.text = "after" }
        #expect(seen.texts == ["before"], "fired once, while the text was still the old one")
        try await controller.update { $0.text += ", again" }
        #expect(seen.texts == ["before", "after"])
        #expect(await controller.changeCount == 2)
    }

    @Test func aDocumentWithoutPublishedPropertiesStillConforms() async throws {
        // GatedDocument keeps its text behind a lock and publishes nothing: its
        // objectWillChange exists and never fires.
        let document = GatedDocument(text: "quiet")
        let seen = TextLog()
        let subscription = document.objectWillChange.sink { seen.append("fired") }
        defer { subscription.cancel() }
        try await DocumentController(newDocument: document).update { $0.text = "still quiet" }
        #expect(seen.texts.isEmpty)
    }
}

/// What a subscriber saw, appended on the controller's executor and read by the test.
private final class TextLog: Sendable {
    private let storage = Locked<[String]>([])

    var texts: [String] { storage.withLock { $0 } }

    func append(_ text: String) {
        storage.withLock { $0.append(text) }
    }
}
