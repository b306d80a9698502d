import FileWrapperDocument
import Foundation
import Testing
import TestSupport

/// What must hold (3): another process changing the file between open and
/// save makes the save fail with an error that names the file, and the
/// other process's version survives; a forced save replaces it.
@Suite(.startsProcesses) struct ConflictTests {
    /// Runs a shell command as another process would, waiting for it
    /// without holding a thread of the cooperative pool (``ChildProcess``).
    static func otherProcess(_ command: String) async throws {
        let result = try await ChildProcess.run("/bin/sh", ["-c", command])
        try #require(result.status == 0, "\(command): \(result.stderr)")
    }

    @Test func aFlatFileWrittenByAnotherProcessIsNotOverwritten() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Shared.txt")
        try Disk.write("mine", to: url)
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        try await controller.update { $0.text = "my edit" }

        try await Self.otherProcess("printf 'theirs' > '\(url.path)'")
        let error = try await #require(throws: DocumentError.self) { try await controller.save() }
        #expect(error.code == .changedOnDisk)
        #expect(error.description.hasPrefix("\"\(url.path)\": changed on disk since it was opened or last saved"))
        #expect(try Disk.text(url) == "theirs")
        #expect(await controller.hasUnsavedChanges)

        try await controller.save(force: true)
        #expect(try Disk.text(url) == "my edit")
        try await controller.save()
    }

    @Test func aFileReplacedWithTheSameSizeAndTimeIsStillSeen() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Same.txt")
        try Disk.write("aaaa", to: url)
        Disk.setModificationTime(url, seconds: 1_700_000_000, nanoseconds: 0)
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        try await Self.otherProcess("printf 'bbbb' > '\(url.path).new' && touch -d @1700000000 '\(url.path).new' && mv '\(url.path).new' '\(url.path)'")
        try await controller.update { $0.text = "mine" }
        await #expect(throws: DocumentError.self) { try await controller.save() }
        #expect(try Disk.text(url) == "bbbb")
    }

    @Test func aChangeInsideAPackageIsSeen() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let package = directory.appending("Team.notes")
        try await DocumentController(newDocument: DocumentFixtures.notes(3)).save(to: package)
        let controller = try await DocumentController<NotesDocument>(contentsOf: package)
        try await controller.update { $0.setNote("note-0", "mine") }

        try await Self.otherProcess("printf ' appended' >> '\(package.path)/Notes/note-2.txt'")
        let error = try await #require(throws: DocumentError.self) { try await controller.save() }
        #expect(error.code == .changedOnDisk && error.path == package.path)
        #expect(try Disk.text(package.appendingPathComponent("Notes/note-2.txt")).hasSuffix(" appended"))
        #expect(try Disk.text(package.appendingPathComponent("Notes/note-0.txt")) != "mine")

        try await controller.revert()
        #expect(await controller.document.notes["note-2"]?.hasSuffix(" appended") == true)
        try await controller.update { $0.setNote("note-0", "mine") }
        try await controller.save()

        try await Self.otherProcess("touch '\(package.path)/Notes/stray.txt'")
        try await controller.update { $0.setNote("note-1", "again") }
        await #expect(throws: DocumentError.self) { try await controller.save() }
        try await controller.save(force: true)
        #expect(try Disk.text(package.appendingPathComponent("Notes/note-1.txt")) == "again")
    }

    @Test func aZipContainerReplacedByAnotherProcessIsNotOverwritten() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let archive = directory.appending("Team.noteszip")
        let other = directory.appending("Other.noteszip")
        try await DocumentController(newDocument: DocumentFixtures.notes(2)).save(to: archive)
        try await DocumentController(newDocument: DocumentFixtures.notes(6)).save(to: other)
        let controller = try await DocumentController<NotesDocument>(contentsOf: archive)

        try await Self.otherProcess("cp '\(other.path)' '\(archive.path)'")
        try await controller.update { $0.setNote("note-0", "mine") }
        await #expect(throws: DocumentError.self) { try await controller.save() }
        let survivor = try await DocumentController<NotesDocument>(contentsOf: archive)
        #expect(await survivor.document.notes.count == 6)
    }

    @Test func aFileDeletedByAnotherProcessIsAConflictToo() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Gone.txt")
        try Disk.write("here", to: url)
        let controller = try await DocumentController<TextDocument>(contentsOf: url)
        try FileManager.default.removeItem(at: url)
        try await controller.update { $0.text = "mine" }
        await #expect(throws: DocumentError.self) { try await controller.save() }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        try await controller.save(force: true)
        #expect(try Disk.text(url) == "mine")
    }
}
