import FileWrapperDocument
import Foundation
import Glibc
import Testing
import TestSupport

/// What must hold (1): the four documents open, change, save, reopen and
/// round-trip in every storage their types allow.
@Suite struct RoundTripTests {
    @Test func aTextDocumentRoundTripsAsAFlatFile() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Letter.txt")
        let controller = DocumentController(newDocument: TextDocument(text: "Dear reader,\n"))
        try await controller.save(to: url)
        #expect(try Disk.text(url) == "Dear reader,\n")

        let opened = try await DocumentController<TextDocument>(contentsOf: url)
        #expect(await opened.contentType == .plainText)
        #expect(await opened.document.text == "Dear reader,\n")
        try await opened.update { $0.text += "Ünïcode ✓\n" }
        try await opened.save()

        let reopened = try await DocumentController<TextDocument>(contentsOf: url)
        #expect(await reopened.document.text == "Dear reader,\nÜnïcode ✓\n")
        #expect(try Disk.text(url) == "Dear reader,\nÜnïcode ✓\n")
    }

    @Test func aReferenceDocumentRoundTripsAsAFlatFile() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Draft.txt")
        let controller = DocumentController(newDocument: TextReferenceDocument(text: "one"))
        try await controller.save(to: url)

        let opened = try await DocumentController<TextReferenceDocument>(contentsOf: url)
        #expect(await opened.document.text == "one")
        try await opened.update { $0.text = "one two" }
        #expect(await opened.hasUnsavedChanges)
        try await opened.save()
        #expect(await !opened.hasUnsavedChanges)

        let reopened = try await DocumentController<TextReferenceDocument>(contentsOf: url)
        #expect(await reopened.document.text == "one two")
    }

    @Test func aCodableDocumentRoundTripsAsJSON() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Groceries.json")
        let list = Checklist(title: "Groceries", items: [.init(title: "Bread", isDone: false)])
        try await DocumentController(newDocument: ChecklistDocument(checklist: list)).save(to: url)

        let opened = try await DocumentController<ChecklistDocument>(contentsOf: url)
        #expect(await opened.document.checklist == list)
        try await opened.update {
            $0.checklist.items[0].isDone = true
            $0.checklist.items.append(.init(title: "Milk", isDone: false))
        }
        try await opened.save()

        let reopened = try await DocumentController<ChecklistDocument>(contentsOf: url)
        #expect(await reopened.document.checklist.items.map(\.title) == ["Bread", "Milk"])
        #expect(await reopened.document.checklist.items[0].isDone)
        let json = try JSONDecoder().decode(Checklist.self, from: Data(contentsOf: url))
        #expect(json == (await reopened.document.checklist))
    }

    @Test(arguments: ["Book.notes", "Book.noteszip"])
    func aPackageDocumentRoundTripsInEachStorage(name: String) async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let url = directory.appending(name)
        let original = DocumentFixtures.notes(5)
        try await DocumentController(newDocument: original).save(to: url, contentType: UTType(filenameExtension: url.pathExtension, conformingTo: .item))
        let isDirectory = Disk.status(url).st_mode & S_IFMT == S_IFDIR
        #expect(isDirectory == (name.hasSuffix(".notes")), "a package is a directory, a zip container a file")

        let opened = try await DocumentController<NotesDocument>(contentsOf: url)
        #expect(await opened.document.notes == original.notes)
        try await opened.update {
            $0.setNote("note-2", "rewritten")
            $0.setNote("extra", "a new note")
        }
        try await opened.save()

        let reopened = try await DocumentController<NotesDocument>(contentsOf: url)
        let document = await reopened.document
        #expect(document.notes["note-2"] == "rewritten")
        #expect(document.notes["extra"] == "a new note")
        #expect(document.notes["note-4"] == original.notes["note-4"])
        #expect(document.index.noteIDs == original.index.noteIDs + ["extra"])
    }

    @Test func aPackageConvertsBetweenBundleAndZipContainer() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let bundle = directory.appending("Book.notes")
        let archive = directory.appending("Book.noteszip")
        let back = directory.appending("Back.notes")
        let original = DocumentFixtures.notes(4)
        try await DocumentController(newDocument: original).save(to: bundle)

        let controller = try await DocumentController<NotesDocument>(contentsOf: bundle)
        try await controller.saveCopy(to: archive, contentType: .notesArchive)
        let zipped = try await DocumentController<NotesDocument>(contentsOf: archive)
        #expect(await zipped.contentType == .notesArchive)
        #expect(await zipped.document.notes == original.notes)

        try await zipped.save(to: back, contentType: .notesPackage)
        #expect(await zipped.fileURL == back)
        let unzipped = try await DocumentController<NotesDocument>(contentsOf: back)
        #expect(await unzipped.document.notes == original.notes)
        #expect(try Disk.names(in: back.appendingPathComponent("Notes")).count == 4)
    }
}
