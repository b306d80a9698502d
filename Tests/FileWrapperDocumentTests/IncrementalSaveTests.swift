import FileWrapperDocument
import Foundation
import Testing
import TestSupport

/// What must hold (2): saving a package document after one item changed
/// rewrites only that item's file; the other files keep their inodes.
@Suite struct IncrementalSaveTests {
    static func inodes(in package: URL) throws -> [String: UInt64] {
        var result = ["index.json": Disk.inode(package.appendingPathComponent("index.json"))]
        for name in try Disk.names(in: package.appendingPathComponent("Notes")) {
            result[name] = Disk.inode(package.appendingPathComponent("Notes/\(name)"))
        }
        return result
    }

    @Test func savingAfterOneNoteChangedRewritesOnlyThatNote() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let package = directory.appending("Journal.notes")
        try await DocumentController(newDocument: DocumentFixtures.notes(20)).save(to: package)
        let before = try Self.inodes(in: package)
        #expect(before.count == 21)

        let controller = try await DocumentController<NotesDocument>(contentsOf: package)
        try await controller.update { $0.setNote("note-7", "only this one changed") }
        try await controller.save()

        let after = try Self.inodes(in: package)
        #expect(Set(after.keys) == Set(before.keys))
        for (name, inode) in before where name != "note-7.txt" {
            #expect(after[name] == inode, "\(name) was rewritten")
        }
        #expect(after["note-7.txt"] != before["note-7.txt"])
        #expect(try Disk.text(package.appendingPathComponent("Notes/note-7.txt")) == "only this one changed")
        #expect(try Disk.names(in: directory.url) == ["Journal.notes"], "a temporary or the old tree was left behind")

        // The next save starts from what this one wrote.
        try await controller.update { $0.setNote("note-3", "then this one") }
        try await controller.save()
        let third = try Self.inodes(in: package)
        #expect(third["note-7.txt"] == after["note-7.txt"])
        #expect(third["note-3.txt"] != after["note-3.txt"])
        #expect(third["note-0.txt"] == before["note-0.txt"])
    }
}
