import FileWrapperDocument
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// A DocumentController opens a zip-container document whose members are
/// compressed with bzip2 lazily too, rather than reading it whole in
/// memory, and its save copies the members it did not change as stored.
@Suite(.startsProcesses) struct ZipLazyMethodDocumentTests {
    /// `IN OUT`: the members of the zip IN, in order, written to OUT with
    /// Python's zipfile, compressed with bzip2.
    static let recompress = """
        import sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as old, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_BZIP2) as new:
            for info in old.infolist():
                new.writestr(info.filename, old.read(info))
        """

    @Test func aBzip2DocumentOpensLazilyAndSavesItsUntouchedMembersAsStored() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let deflated = directory.appending("Deflated.noteszip")
        try await DocumentController(newDocument: DocumentFixtures.notes(4)).save(to: deflated, contentType: .notesArchive)
        let zip = directory.appending("Bzip2.noteszip")
        let made = try await ChildProcess.run("/bin/sh", ["-c", "exec python3 -c \"$0\" \"$@\"", Self.recompress, deflated.path, zip.path])
        try #require(made.exited && made.status == 0, "\(made.stderr)")
        let before = try StoredZipMembers.list(zip)
        try #require(before.filter { !$0.name.hasSuffix("/") }.allSatisfy { $0.method == 12 })

        let controller = try await DocumentController<TreeDocument>(contentsOf: zip)
        let notes = try #require(await controller.document.tree.fileWrappers?["Notes"]?.fileWrappers)
        #expect(notes.count == 4)
        #expect(notes.values.allSatisfy { !$0.isRegularFileContentsLoaded }, "opening read the members")
        let note = try #require(notes["note-1.txt"])
        #expect(String(decoding: try note.readRegularFileContents(), as: UTF8.self) == DocumentFixtures.notes(4).notes["note-1"])
        #expect(!notes["note-2.txt"]!.isRegularFileContentsLoaded)

        let notesDocument = try await DocumentController<NotesDocument>(contentsOf: zip)
        try await notesDocument.update { $0.setNote("note-3", "only this one changed") }
        try await notesDocument.save()
        let after = try StoredZipMembers.list(zip)
        func member(_ name: String, in members: [StoredZipMembers.Member]) -> StoredZipMembers.Member? {
            members.first { $0.name.utf8.elementsEqual(name.utf8) }
        }
        #expect(member("Notes/note-0.txt", in: after) == member("Notes/note-0.txt", in: before), "an untouched bzip2 member was written anew")
        #expect(member("Notes/note-3.txt", in: after) != member("Notes/note-3.txt", in: before))
        let reopened = try await DocumentController<NotesDocument>(contentsOf: zip)
        #expect(await reopened.document.notes["note-3"] == "only this one changed")
    }
}
