import FileWrapperDocument
import Foundation
import Testing

/// The protocols driven directly through the public configurations, as a
/// test or a tool does without a controller.
@Suite struct DocumentProtocolTests {
    @Test func aValueDocumentReadsAndWritesThroughTheConfigurations() throws {
        let file = FileWrapper(regularFileWithContents: Data("héllo".utf8))
        let document = try TextDocument(configuration: TextDocument.ReadConfiguration(contentType: .plainText, file: file))
        #expect(document.text == "héllo")
        let written = try document.fileWrapper(configuration: FileDocumentWriteConfiguration(contentType: .plainText, existingFile: file))
        #expect(written.regularFileContents == Data("héllo".utf8))
        #expect(TextDocument.writableContentTypes == [.plainText], "writable types default to the readable ones")
    }

    @Test func textThatIsNotUTF8IsRefusedAsCorrupt() {
        let file = FileWrapper(regularFileWithContents: Data([0xFF, 0xFE, 0xC0]))
        #expect(throws: CocoaError(.fileReadCorruptFile)) {
            try TextDocument(configuration: FileDocumentReadConfiguration(contentType: .plainText, file: file))
        }
    }

    @Test func aReferenceDocumentSnapshotsItsText() throws {
        let document = TextReferenceDocument(text: "first")
        let snapshot = try document.snapshot(contentType: .plainText)
        document.text = "second"
        let written = try document.fileWrapper(snapshot: snapshot, configuration: .init(contentType: .plainText, existingFile: nil))
        #expect(written.regularFileContents == Data("first".utf8))
    }

    @Test func aPackageDocumentReusesItsUnchangedChildren() throws {
        var document = DocumentFixtures.notes(3)
        let first = try document.fileWrapper(configuration: .init(contentType: .notesPackage, existingFile: nil))
        document.setNote("note-1", "changed")
        let second = try document.fileWrapper(configuration: .init(contentType: .notesPackage, existingFile: first))
        let before = try #require(first.fileWrappers?["Notes"]?.fileWrappers)
        let after = try #require(second.fileWrappers?["Notes"]?.fileWrappers)
        #expect(after["note-0.txt"] === before["note-0.txt"])
        #expect(after["note-2.txt"] === before["note-2.txt"])
        #expect(after["note-1.txt"] !== before["note-1.txt"])
        #expect(second.fileWrappers?["index.json"] === first.fileWrappers?["index.json"])

        let reread = try NotesDocument(configuration: .init(contentType: .notesPackage, file: second))
        #expect(reread.notes == document.notes && reread.index == document.index)
    }
}
