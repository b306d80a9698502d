import FileWrapperDocument
import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 37, item 2: a controller tells its owner that others replaced,
/// changed, moved or deleted its file (``DocumentController/diskChanges()``),
/// one event a change however many files a package has, none for its own
/// saves; revert and a forced save resolve a replacement; closing ends the
/// watch and its descriptor.
///
/// Serialized: the descriptor test counts the process's inotify descriptors.
@Suite(.serialized, .startsProcesses) struct DiskChangeTests {
    /// Another process's saves (`fwk-test-child append-lines`) are one
    /// event each; this controller's own saves, before and after, none.
    @Test func anotherProcessesSaveIsOneEventAndOurOwnNone() async throws {
        let directory = try TemporaryDirectory()
        let url = try SharedSaveTests.newDocument("Shared.lines", in: directory)
        let controller = try await DocumentController<EventLines>(contentsOf: url, contentType: EventLines.type)
        let events = EventCollector(controller.diskChanges())

        for line in ["own-0", "own-1"] {
            try await controller.update { $0.lines.append(line) }
            try await controller.save()
        }
        await events.settle()
        #expect(events.all.isEmpty, "our own saves: \(events.all)")

        for (index, writer) in ["a", "b"].enumerated() {
            let run = try await ChildProcess.run(KillHarness.child.path, ["append-lines", url.path, writer, "1"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(await events.wait(for: index + 1), "no event for \(writer)'s save")
            await events.settle()
            #expect(events.all == Array(repeating: .replaced, count: index + 1), "\(events.all)")
        }

        try await controller.revert()
        try await controller.update { $0.lines.append("own-2") }
        try await controller.save()
        await events.settle()
        #expect(events.all.count == 2, "our save after the revert: \(events.all)")
        try await controller.close()
    }

    /// Another controller's save of a package of 200 files is one event.
    @Test func aSaveOfManyFilesIsOneEvent() async throws {
        let directory = try TemporaryDirectory()
        let url = try SharedSaveTests.newDocument("Many.lines", in: directory)
        let watching = try await DocumentController<EventLines>(contentsOf: url, contentType: EventLines.type)
        let events = EventCollector(watching.diskChanges())
        let other = try await DocumentController<EventLines>(contentsOf: url, contentType: EventLines.type)

        try await other.update { $0.fillers = 200 }
        try await other.save()
        #expect(await events.wait(for: 1))
        await events.settle()
        #expect(events.all == [.replaced])
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).count == 203)
        try await other.close()
        try await watching.close()
    }

    /// After another's save, a save is refused until a revert reads it
    /// (then this controller's save is no event), or a forced save
    /// replaces it (no event either).
    @Test func revertAndForcedSaveResolveAReplacement() async throws {
        let directory = try TemporaryDirectory()
        let url = try SharedSaveTests.newDocument("Shared.lines", in: directory)
        let controller = try await DocumentController<EventLines>(contentsOf: url, contentType: EventLines.type)
        let events = EventCollector(controller.diskChanges())

        try await Self.saveInAnotherProcess(url, "a")
        #expect(await events.wait(for: 1))
        try await controller.update { $0.lines.append("mine") }
        await #expect(throws: DocumentError.self) { try await controller.save() }
        try await controller.revert()
        #expect(await controller.document.lines == ["a-0-0"])
        try await controller.update { $0.lines.append("mine") }
        try await controller.save()

        try await Self.saveInAnotherProcess(url, "b")
        #expect(await events.wait(for: 2))
        try await controller.update { $0.lines.append("forced") }
        try await controller.save(force: true)
        await events.settle()
        #expect(events.all == [.replaced, .replaced], "\(events.all)")
        #expect(try SharedSaveTests.lines(of: url) == ["a-0-0", "mine", "forced"])
        try await controller.close()
    }

    /// `mv` within the folder is a move to the new name; `mv` back is no
    /// event (the version there is the controller's); `mv` out of the
    /// folder is a move to somewhere unknown.
    @Test func mvIsAMove() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Note.txt")
        let renamed = directory.appending("Renamed.txt")
        try Disk.write("one", to: url)
        let controller = try await DocumentController<EventText>(contentsOf: url)
        let events = EventCollector(controller.diskChanges())
        try FileManager.default.createDirectory(at: directory.appending("elsewhere"), withIntermediateDirectories: false)

        try await Self.runTool("/bin/mv", [url.path, renamed.path])
        #expect(await events.wait(for: 1))
        try await Self.runTool("/bin/mv", [renamed.path, url.path])
        await events.settle()
        #expect(events.all.count == 1, "\(events.described)")
        try await Self.runTool("/bin/mv", [url.path, directory.appending("elsewhere").path])
        #expect(await events.wait(for: 2))
        await events.settle()
        #expect(events.described == ["moved to \(renamed.standardizedFileURL.path)", "moved to ?"])
        #expect(await controller.fileURL == url.standardizedFileURL)
        try await controller.close(saving: false)
    }

    /// `rm -r` of a package is one deletion; a program writing a flat file
    /// in place is a change.
    @Test func rmIsADeletionAndAWriteInPlaceAChange() async throws {
        let directory = try TemporaryDirectory()
        let package = try SharedSaveTests.newDocument("Shared.lines", in: directory)
        try await Self.saveInAnotherProcess(package, "a")
        let controller = try await DocumentController<EventLines>(contentsOf: package, contentType: EventLines.type)
        let events = EventCollector(controller.diskChanges())
        try await Self.runTool("/bin/rm", ["-r", package.path])
        #expect(await events.wait(for: 1))
        await events.settle()
        #expect(events.all == [.deleted])
        try await controller.close(saving: false)

        let note = directory.appending("Note.txt")
        try Disk.write("one", to: note)
        let text = try await DocumentController<EventText>(contentsOf: note)
        let textEvents = EventCollector(text.diskChanges())
        try await Self.runTool("/bin/sh", ["-c", "echo two >> \"$0\"", note.path])
        #expect(await textEvents.wait(for: 1))
        await textEvents.settle()
        #expect(textEvents.all == [.changed])
        try await text.close(saving: false)
    }

    /// The watch's descriptor exists from the first stream on and is gone
    /// once the controller closes; the streams end.
    @Test func closingEndsTheWatchAndItsDescriptor() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Note.txt")
        try Disk.write("one", to: url)
        let before = Self.inotifyDescriptors()
        let controller = try await DocumentController<EventText>(contentsOf: url)
        #expect(Self.inotifyDescriptors() == before, "nothing watched before a stream is asked for")
        let events = EventCollector(controller.diskChanges())
        #expect(Self.inotifyDescriptors() == before + 1)
        try await controller.close(saving: false)
        #expect(Self.inotifyDescriptors() == before)
        #expect(await events.waitForEnd())
        var ended = controller.diskChanges().makeAsyncIterator()
        #expect(await ended.next() == nil, "a stream asked for after close ends at once")
    }

    /// A presenter registered with `NSFileCoordinator.addFilePresenter(_:)`
    /// is told of another process's save and of a move, not of a
    /// coordinated write made with it as the coordinator's presenter; once
    /// removed, its watch and descriptor are gone.
    @Test func aRegisteredPresenterIsToldOfOthersChanges() async throws {
        let directory = try TemporaryDirectory()
        let url = try SharedSaveTests.newDocument("Shared.txt", in: directory)
        let before = Self.inotifyDescriptors()
        let presenter = Presenter(url)
        NSFileCoordinator.addFilePresenter(presenter)

        var error: NSError?
        NSFileCoordinator(filePresenter: presenter).coordinate(writingItemAt: url, options: .forReplacing, error: &error) { url in
            try? Data("own\n".utf8).write(to: url, options: .atomic)
        }
        #expect(error == nil)
        try await Task.sleep(for: .milliseconds(400))
        #expect(presenter.calls.withLock { $0 }.isEmpty, "its own coordinated write")

        try await Self.saveInAnotherProcess(url, "a")
        #expect(await Self.eventually { presenter.calls.withLock { $0 } == ["change"] })
        try await Self.runTool("/bin/mv", [url.path, directory.appending("Renamed.txt").path])
        #expect(await Self.eventually { presenter.calls.withLock { $0 } == ["change", "move Renamed.txt"] }, "\(presenter.calls.withLock { $0 })")

        NSFileCoordinator.removeFilePresenter(presenter)
        #expect(await Self.eventually { Self.inotifyDescriptors() == before })
    }

    // MARK: - Helpers

    static func saveInAnotherProcess(_ url: URL, _ writer: String) async throws {
        let run = try await ChildProcess.run(KillHarness.child.path, ["append-lines", url.path, writer, "1"])
        #expect(run.status == 0, "\(run.stderr)")
    }

    static func runTool(_ tool: String, _ arguments: [String]) async throws {
        let run = try await ChildProcess.run(tool, arguments)
        #expect(run.status == 0, "\(tool) \(arguments): \(run.stderr)")
    }

    /// Waits up to 10 s for `condition`; whether it came true.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// How many descriptors of this process are inotify instances.
    static func inotifyDescriptors() -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "anon_inode:inotify" }.count
    }
}

/// A value behind an `NSLock`, which ThreadSanitizer follows (it took
/// `Mutex`'s accesses here for a race).
final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// A presenter that notes what it is told.
final class Presenter: NSObject, NSFilePresenter, Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()
    let calls = Guarded<[String]>([])

    init(_ url: URL) {
        presentedItemURL = url
    }

    func presentedItemDidChange() {
        calls.withLock { $0.append("change") }
    }

    func presentedItemDidMove(to newURL: URL) {
        calls.withLock { $0.append("move \(newURL.lastPathComponent)") }
    }

    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        calls.withLock { $0.append("delete") }
        completionHandler(nil)
    }
}

/// Collects a stream of changes as they come.
final class EventCollector: Sendable {
    private let state = Guarded<(events: [DocumentDiskChange], ended: Bool)>(([], false))

    init(_ stream: AsyncStream<DocumentDiskChange>) {
        Task {
            for await change in stream { self.state.withLock { $0.events.append(change) } }
            self.state.withLock { $0.ended = true }
        }
    }

    var all: [DocumentDiskChange] { state.withLock { $0.events } }

    /// The events, a move shown with the path moved to.
    var described: [String] {
        all.map { change in
            switch change {
            case .moved(let url): "moved to \(url?.path ?? "?")"
            default: "\(change)"
            }
        }
    }

    /// Waits up to 10 s for `count` events; whether they came.
    func wait(for count: Int) async -> Bool {
        await poll { $0.events.count >= count }
    }

    /// Waits up to 10 s for the stream to end; whether it did.
    func waitForEnd() async -> Bool {
        await poll { $0.ended }
    }

    /// Long enough for an event that was coming to have come.
    func settle() async {
        try? await Task.sleep(for: .milliseconds(400))
    }

    private func poll(_ done: ((events: [DocumentDiskChange], ended: Bool)) -> Bool) async -> Bool {
        for _ in 0..<500 {
            if state.withLock({ done($0) }) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

/// A package of lines as `fwk-test-child append-lines` writes it
/// (`lines.txt`, `count`, `last`), with `fillers` more files.
struct EventLines: FileDocument {
    static let type = UTType(exportedAs: "org.filewrapperkit.test-event-lines", conformingTo: .package)
    static var readableContentTypes: [UTType] { [type] }

    var lines: [String] = []
    var fillers = 0

    init(configuration: ReadConfiguration) throws {
        let text = configuration.file.fileWrappers?["lines.txt"]?.regularFileContents ?? Data()
        lines = String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
        fillers = configuration.file.fileWrappers?.keys.filter { $0.hasPrefix("filler-") }.count ?? 0
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        var files = [
            "lines.txt": FileWrapper(regularFileWithContents: Data(lines.map { $0 + "\n" }.joined().utf8)),
            "count": FileWrapper(regularFileWithContents: Data("\(lines.count)".utf8)),
            "last": FileWrapper(regularFileWithContents: Data((lines.last ?? "").utf8)),
        ]
        for index in 0..<fillers { files["filler-\(index)"] = FileWrapper(regularFileWithContents: Data("\(index)".utf8)) }
        return FileWrapper(directoryWithFileWrappers: files)
    }
}

/// A flat text file.
struct EventText: FileDocument {
    static var readableContentTypes: [UTType] { [.plainText] }
    var text: String

    init(configuration: ReadConfiguration) throws {
        text = String(decoding: configuration.file.regularFileContents ?? Data(), as: UTF8.self)
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(text.utf8))
    }
}
