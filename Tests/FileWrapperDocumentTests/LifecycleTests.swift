import FileWrapperDocument
import Foundation
import Testing
import TestSupport

/// New, save as, save a copy, autosave, revert, rename, close, viewing
/// only, and the change count.
@Suite struct LifecycleTests {
    @Test func aNewDocumentHasNoFileUntilSaved() async throws {
        let directory = try TemporaryDirectory()
        let controller = DocumentController(newDocument: TextDocument(text: "new"))
        #expect(await controller.fileURL == nil)
        #expect(await controller.contentType == .plainText)
        #expect(await !controller.hasUnsavedChanges)
        let error = try await #require(throws: DocumentError.self) { try await controller.save() }
        #expect(error.code == .noFileURL && error.description.hasPrefix("\"untitled\": has no file yet"))
        #expect(try await controller.autosave() == false)

        try await controller.update { $0.text += "!" }
        #expect(await controller.changeCount == 1)
        #expect(await controller.hasUnsavedChanges)
        let url = directory.appending("New.txt")
        try await controller.save(to: url)
        #expect(await controller.fileURL == url)
        #expect(await !controller.hasUnsavedChanges)
        #expect(try Disk.text(url) == "new!")
    }

    @Test func saveAsMovesTheDocumentAndLeavesTheOldFile() async throws {
        let directory = try TemporaryDirectory()
        let first = directory.appending("First.txt")
        let second = directory.appending("Second.txt")
        try Disk.write("original", to: first)
        let controller = try await DocumentController<TextDocument>(contentsOf: first)
        try await controller.update { $0.text = "edited" }
        try await controller.save(to: second)
        #expect(await controller.fileURL == second)
        #expect(try Disk.text(first) == "original")
        #expect(try Disk.text(second) == "edited")

        try await controller.update { $0.text = "edited again" }
        try await controller.save()
        #expect(try Disk.text(second) == "edited again")
        #expect(try Disk.text(first) == "original")
    }

    @Test func saveACopyLeavesTheDocumentWhereItIs() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Doc.txt")
        let copy = directory.appending("Copy.txt")
        try Disk.write("original", to: url)
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        try await controller.update { $0.text = "edited" }
        try await controller.saveCopy(to: copy)
        #expect(await controller.fileURL == url)
        #expect(await controller.hasUnsavedChanges, "a copy does not save the document")
        #expect(try Disk.text(copy) == "edited")
        #expect(try Disk.text(url) == "original")
        try await controller.save()
        #expect(try Disk.text(url) == "edited")
    }

    @Test func autosaveWritesOnlyWhenThereAreUnsavedChanges() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Auto.txt")
        try Disk.write("start", to: url)
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        let inode = Disk.inode(url)
        #expect(try await controller.autosave() == false)
        #expect(Disk.inode(url) == inode, "nothing was written")

        try await controller.update { $0.text = "changed" }
        #expect(try await controller.autosave() == true)
        #expect(try Disk.text(url) == "changed")
        let saved = Disk.inode(url)
        #expect(try await controller.autosave() == false)
        #expect(Disk.inode(url) == saved)
    }

    @Test func revertReadsWhatIsOnDiskAndDropsChanges() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Revert.txt")
        try Disk.write("on disk", to: url)
        let controller = try await DocumentController<TextReferenceDocument>(contentsOf: url)
        try await controller.update { $0.text = "unsaved" }
        try await controller.revert()
        #expect(await controller.document.text == "on disk")
        #expect(await !controller.hasUnsavedChanges)
        await #expect(throws: DocumentError.self) { try await DocumentController(newDocument: TextDocument()).revert() }
    }

    @Test func renameMovesTheFileAndTheURLFollows() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Before.txt")
        try Disk.write("text", to: url)
        try Disk.write("bystander", to: directory.appending("Taken.txt"))
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        try await controller.rename(to: "After.txt")
        let renamed = directory.appending("After.txt")
        #expect(await controller.fileURL == renamed)
        #expect(try Disk.names(in: directory.url) == ["After.txt", "Taken.txt"])

        let taken = try await #require(throws: DocumentError.self) { try await controller.rename(to: "Taken.txt") }
        #expect(taken.description.hasPrefix("\"\(renamed.path)\": cannot be renamed to \"Taken.txt\""))
        #expect(try Disk.text(directory.appending("Taken.txt")) == "bystander")
        let invalid = try await #require(throws: DocumentError.self) { try await controller.rename(to: "a/b") }
        #expect(invalid.code == .invalidName)

        try await controller.update { $0.text = "saved after rename" }
        try await controller.save()
        #expect(try Disk.text(renamed) == "saved after rename")
    }

    @Test func aRenamedPackageStillSavesIncrementally() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let package = directory.appending("Old.notes")
        try await DocumentController(newDocument: DocumentFixtures.notes(4)).save(to: package)
        let controller = try await DocumentController<NotesDocument>(contentsOf: package)
        try await controller.rename(to: "New.notes")
        let renamed = directory.appending("New.notes")
        let before = try IncrementalSaveTests.inodes(in: renamed)

        try await controller.update { $0.setNote("note-1", "changed after rename") }
        try await controller.save()
        let after = try IncrementalSaveTests.inodes(in: renamed)
        #expect(after["note-0.txt"] == before["note-0.txt"])
        #expect(after["note-1.txt"] != before["note-1.txt"])
    }

    @Test func closeSavesChangesThenRefusesEverything() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Close.txt")
        try Disk.write("before", to: url)
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        try await controller.update { $0.text = "after" }
        try await controller.close()
        #expect(await controller.isClosed)
        #expect(try Disk.text(url) == "after")
        let error = try await #require(throws: DocumentError.self) { try await controller.save() }
        #expect(error.code == .closed)
        await #expect(throws: DocumentError.self) { try await controller.saveCopy(to: directory.appending("x.txt")) }
        try await controller.close()

        let untitled = DocumentController(newDocument: TextDocument(text: "never saved"))
        try await untitled.update { $0.text += "!" }
        try await untitled.close()
        #expect(try Disk.names(in: directory.url) == ["Close.txt"])
    }

    @Test func aDocumentOpenedForViewingCannotBeSaved() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("ReadOnly.txt")
        try Disk.write("look only", to: url)
        let controller = try await DocumentController<TextDocument>(contentsOf: url, isEditable: false)
        #expect(!controller.isEditable)
        try await controller.update { $0.text = "changed in memory" }

        let error = try await #require(throws: DocumentError.self) { try await controller.save() }
        #expect(error.code == .notEditable)
        #expect(error.description.hasPrefix("\"\(url.path)\": was opened for viewing only"))
        await #expect(throws: DocumentError.self) { try await controller.save(to: directory.appending("As.txt")) }
        await #expect(throws: DocumentError.self) { try await controller.rename(to: "Other.txt") }
        #expect(try await controller.autosave() == false)
        try await controller.close()
        #expect(try Disk.text(url) == "look only")
        #expect(try Disk.names(in: directory.url) == ["ReadOnly.txt"])

        let viewer = try await DocumentController<TextDocument>(contentsOf: url, isEditable: false)
        try await viewer.saveCopy(to: directory.appending("Exported.txt"))
        #expect(try Disk.text(directory.appending("Exported.txt")) == "look only")
    }

    @Test func aTypeTheDocumentDoesNotWriteIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let controller = DocumentController(newDocument: TextDocument())
        let url = directory.appending("x.json")
        let error = try await #require(throws: DocumentError.self) { try await controller.save(to: url, contentType: .json) }
        #expect(error.code == .unwritableContentType)
        #expect(error.description == "\"\(url.path)\": cannot be saved as public.json: the document type writes only public.plain-text")
    }

    @Test func savingOverSomethingOfAnotherKindIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Folder.txt")
        try Disk.write("inside", to: url.appendingPathComponent("keep.txt"))
        let error = try await #require(throws: DocumentError.self) {
            try await DocumentController(newDocument: TextDocument()).save(to: url)
        }
        #expect(error.code == .wrongKind)
        #expect(try Disk.text(url.appendingPathComponent("keep.txt")) == "inside")
    }
}
