import FileWrapperDocument
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Issue 25, item 2: a DocumentController opens a zip-container document
/// lazily (its members read on first use) and saves it incrementally: the
/// members the document did not change are copied as the zip stores them.
@Suite(.startsProcesses) struct ZipContainerDocumentTests {
    @Test func savingAfterOneNoteChangedCopiesTheOtherMembersAsStored() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let zip = directory.appending("Journal.noteszip")
        try await DocumentController(newDocument: DocumentFixtures.notes(20)).save(to: zip, contentType: .notesArchive)
        let before = try StoredZipMembers.list(zip)

        let controller = try await DocumentController<NotesDocument>(contentsOf: zip)
        try await controller.update { $0.setNote("note-7", "only this one changed") }
        try await controller.save()

        let after = try StoredZipMembers.list(zip)
        #expect(after.map(\.name) == before.map(\.name))
        for member in after where !member.name.hasSuffix("/") {
            let old = before.first { $0.name == member.name }
            if member.name == "Notes/note-7.txt" {
                #expect(member != old)
            } else {
                #expect(member == old, "\(member.name) was written anew")
            }
        }
        #expect(try Disk.names(in: directory.url) == ["Journal.noteszip"], "a temporary or the old zip was left behind")
        let reopened = try await DocumentController<NotesDocument>(contentsOf: zip)
        #expect(await reopened.document.notes["note-7"] == "only this one changed")
        #expect(await reopened.document.notes["note-3"] == DocumentFixtures.notes(20).notes["note-3"])
    }

    @Test func aZipContainerOpensLazilyAndItsMembersFollowARename() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let zip = directory.appending("Lazy.noteszip")
        try await DocumentController(newDocument: DocumentFixtures.notes(5)).save(to: zip, contentType: .notesArchive)

        let controller = try await DocumentController<TreeDocument>(contentsOf: zip)
        let tree = await controller.document.tree
        let notes = try #require(tree.fileWrappers?["Notes"]?.fileWrappers)
        #expect(notes.count == 5)
        #expect(notes.values.allSatisfy { !$0.isRegularFileContentsLoaded }, "opening read the members")

        try await controller.rename(to: "Renamed.noteszip")
        let note = try #require(notes["note-2.txt"])
        #expect(String(decoding: try note.readRegularFileContents(), as: UTF8.self) == DocumentFixtures.notes(5).notes["note-2"])
        #expect(!notes["note-3.txt"]!.isRegularFileContentsLoaded)
    }
}

/// A document that keeps the tree it was read from, as it was handed over,
/// and writes it back.
struct TreeDocument: FileDocument, @unchecked Sendable {
    static var readableContentTypes: [UTType] { [.notesArchive] }

    let tree: FileWrapper

    init(configuration: ReadConfiguration) throws {
        tree = configuration.file
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        tree
    }
}
