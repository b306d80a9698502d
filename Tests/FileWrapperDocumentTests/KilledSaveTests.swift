import FileWrapperDocument
import Foundation
import Glibc
import Testing
import TestSupport

/// What must hold (4): a document killed mid-save (SIGKILL, at many
/// instants) is always readable afterwards, as the old version or the new
/// one, whole; the next save removes what the killed one left.
///
/// Each save runs in a child process (an exit test) that opens the
/// document, rewrites every note, starts the save and kills itself after a
/// random delay spread over the time a save takes.
@Suite struct KilledSaveTests {
    /// A notes document whose every note says `version`, large enough that a save takes a while.
    static func notes(_ version: String) -> NotesDocument {
        var document = NotesDocument(title: version)
        for index in 0..<24 {
            document.setNote("note-\(index)", "\(version) " + String(repeating: "\(version) \(index) ", count: 12_000))
        }
        return document
    }

    /// The version the document at `url` holds, or `nil` if it is a mix.
    static func version(at url: URL) async throws -> String {
        let document = try await DocumentController<NotesDocument>(contentsOf: url).document
        let versions = Set(document.notes.values.map { String($0.prefix(while: { $0 != " " })) })
        try #require(versions.count == 1 && versions.first == document.index.title, "a mix of versions: \(versions), title \(document.index.title)")
        try #require(document.notes.count == 24)
        return document.index.title
    }

    @Test(arguments: ["Killed.notes", "Killed.noteszip"])
    func killedAtRandomInstantsTheDocumentIsOldOrNewWhole(name: String) async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let url = directory.appending(name)
        try await DocumentController(newDocument: Self.notes("B")).save(to: url)
        // Time a save as the child makes it: of an opened document, every note changed.
        let timed = try await DocumentController<NotesDocument>(contentsOf: url)
        await timed.update { $0 = Self.notes("A") }
        let started = Date()
        try await timed.save()
        let saveDuration = Date().timeIntervalSince(started)

        var current = "A"
        var outcomes: [String: Int] = [:]
        for _ in 0..<24 {
            let next = current == "A" ? "B" : "A"
            let delay = UInt32(Double.random(in: 0...(saveDuration * 1.2)) * 1_000_000)
            await #expect(processExitsWith: .signal(SIGKILL)) { [path = url.path as String, next = next as String, delay = delay as UInt32] in
                DocumentFixtures.registerNotesTypes()
                let controller = try await DocumentController<NotesDocument>(contentsOf: URL(fileURLWithPath: path))
                await controller.update { $0 = KilledSaveTests.notes(next) }
                let save = Task { try await controller.save() }
                usleep(delay)
                kill(getpid(), SIGKILL)
                _ = try await save.value
            }
            let found = try await Self.version(at: url)
            outcomes[found == next ? "new" : "old", default: 0] += 1
            if try Disk.names(in: directory.url).count > 1 { outcomes["left a temporary", default: 0] += 1 }
            current = found
        }
        #expect(outcomes["old", default: 0] > 0, "no save was killed before it finished: \(outcomes)")

        let last = current == "A" ? "B" : "A"
        let controller = try await DocumentController<NotesDocument>(contentsOf: url)
        await controller.update { $0 = Self.notes(last) }
        try await controller.save()
        #expect(try await Self.version(at: url) == last)
        #expect(try Disk.names(in: directory.url) == [name], "a killed save's temporary was not removed")
    }
}
