import Dispatch
import FileWrapperDocument
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// A reference document's snapshot is taken while edits wait; serializing
/// and writing run off the controller, so edits go on during a save and
/// stay unsaved changes; saves run one after another.
@Suite(.startsProcesses) struct ConcurrencyTests {
    @Test func editsGoOnWhileASaveSerializes() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Gated.txt")
        let document = GatedDocument(text: "before the save")
        let controller = DocumentController(newDocument: document)

        let save = Task { try await controller.save(to: url) }
        for await _ in document.serializing { break }
        // The save is serializing now. If it held the controller, this edit
        // would wait for it, and the save would give up after 10 minutes.
        // Long, because the edit needs a thread of Swift's pool, which the
        // blocking work of other tests can hold for minutes in a sanitizer
        // build (a child process, up to the 5 it is given).
        try await controller.update { $0.text = "edited during the save" }
        document.release.signal()
        try await save.value

        #expect(try Disk.text(url) == "before the save", "the snapshot was taken before the edit")
        #expect(await controller.hasUnsavedChanges, "the edit made during the save is not saved")
        #expect(await controller.document.text == "edited during the save")
        document.release.signal()
        try await controller.save()
        #expect(try Disk.text(url) == "edited during the save")
    }

    /// Serializing and writing hold none of the threads of Swift's pool:
    /// in a process of its own, where no other test uses the pool, a task
    /// per core blocks its thread while a save serializes.
    @Test func aSaveLeavesEveryThreadOfThePoolToOtherTasks() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Saved.txt")

        let run = try KillHarness.run(["save-while-threads-block", url.path], killingAfter: nil)

        #expect(run.succeeded, "\(run.ending)")
        #expect(try Disk.text(url) == "saved while the tasks blocked")
    }

    @Test func savesRunOneAfterAnotherInOrder() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Ordered.txt")
        let controller = DocumentController(newDocument: TextDocument(text: "0"))
        try await controller.save(to: url)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 1...20 {
                try await controller.update { $0.text = "\(index)" }
                group.addTask { try await controller.save() }
            }
            try await group.waitForAll()
        }
        #expect(try Disk.text(url) == "20")
        #expect(await !controller.hasUnsavedChanges)
        #expect(try Disk.names(in: directory.url) == ["Ordered.txt"])
    }
}

/// A reference document whose serialization says that it started and then
/// waits to be released.
final class GatedDocument: ReferenceFileDocument {
    static var readableContentTypes: [UTType] { [.plainText] }

    let serializing: AsyncStream<Void>
    private let serializingStarted: AsyncStream<Void>.Continuation
    let release = DispatchSemaphore(value: 0)
    private let storage: Locked<String>

    var text: String {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    init(text: String) {
        storage = Locked(text)
        (serializing, serializingStarted) = AsyncStream.makeStream()
    }

    convenience init(configuration: ReadConfiguration) throws {
        self.init(text: String(decoding: configuration.file.regularFileContents ?? Data(), as: UTF8.self))
    }

    func snapshot(contentType: UTType) throws -> String { text }

    func fileWrapper(snapshot: String, configuration: WriteConfiguration) throws -> FileWrapper {
        serializingStarted.yield()
        guard release.wait(timeout: .now() + 600) == .success else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "not released within 10 minutes"])
        }
        return FileWrapper(regularFileWithContents: Data(snapshot.utf8))
    }
}
