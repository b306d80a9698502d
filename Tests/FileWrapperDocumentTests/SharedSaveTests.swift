import FileWrapperArchive
import FileWrapperDocument
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// Issue 37, item 1: writers of one document, in several processes and
/// several controllers of one process, take turns, so that no save lands
/// over another's unseen; readers see one whole version; a writer killed
/// holding the lock blocks no one.
///
/// Each writer is `fwk-test-child append-lines` (a line a save, a refused
/// save met by revert and the line appended again): at the end every line
/// of every writer is in the document exactly once.
@Suite(.startsProcesses) struct SharedSaveTests {
    /// The reproduction: two processes appending 40 lines each to
    /// one package kept 63 lines, both having reported 40 saves.
    @Test func twoProcessesAppendingFortyLinesEachKeepEveryLine() async throws {
        let directory = try TemporaryDirectory()
        let document = try Self.newDocument("Shared.lines", in: directory)
        let edits = TestSizes.pick(full: 40, reduced: 12)

        let runs = try await Self.run(writers: ["a", "b"].map { ["append-lines", document.path, $0, "\(edits)"] })

        for run in runs { #expect(run.status == 0 && run.stdout == "saved \(edits)\n", "\(run.stderr)") }
        let lines = try Self.lines(of: document)
        #expect(lines.count == 2 * edits)
        #expect(Self.missingOrRepeated(in: lines, writers: ["a", "b"], controllers: 1, edits: edits).isEmpty)
        #expect(try Disk.names(in: directory.url) == ["Shared.lines"])
    }

    /// The proof, for each way a document is stored: three
    /// processes of two controllers each, and a fourth process killed
    /// (SIGKILL) at the swap of its third save, holding the lock; a
    /// reader reads the package's files throughout, coordinated.
    @Test(arguments: ["Shared.lines", "Shared.lineszip", "Shared.txt"])
    func writersInSeveralProcessesTakeTurnsAndAKilledOneBlocksNoOne(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let document = try Self.newDocument(name, in: directory)
        let edits = TestSizes.pick(full: 20, reduced: 6)
        let writers = ["a", "b", "c"]
        let reader = name.hasSuffix(".lines") ? PackageReader(document) : nil

        let killed = ["append-lines", document.path, "k", "\(edits)", "--fault=renameat2:3:kill"]
        let runs = try await Self.run(writers: writers.map { ["append-lines", document.path, $0, "\(edits)", "--controllers=2"] } + [killed])
        let reads = reader?.stop()
        // One more writer, after all: it takes over the lock file the
        // killed one held, should the others have ended before the kill,
        // and its save removes what the kill left.
        let last = try await Self.run(writers: [["append-lines", document.path, "z", "1"]])[0]

        for run in runs.dropLast() + [last] { #expect(run.status == 0 && run.stdout.hasPrefix("saved "), "\(run.stderr)") }
        #expect(!runs.last!.exited && runs.last!.status == SIGKILL, "the writer to kill \(runs.last!.stderr)")
        let lines = try Self.lines(of: document)
        #expect(Self.missingOrRepeated(in: lines, writers: writers, controllers: 2, edits: edits).isEmpty)
        #expect(lines.filter { $0.hasPrefix("k-") } == ["k-0-0", "k-0-1"], "the killed writer's two saves before its third, each once")
        #expect(lines.filter { $0.hasPrefix("z-") } == ["z-0-0"])
        #expect(lines.count == writers.count * 2 * edits + 3)
        #expect(try Disk.names(in: directory.url) == [name], "no lock file or temporary left")
        if let reads {
            #expect(reads.whole > 0 && reads.mixed.isEmpty, "\(reads.whole) whole versions read, mixed: \(reads.mixed.prefix(3))")
        }
    }

    /// Versions with two processes saving (issue 37, item 3): each save
    /// keeps the version it replaced, under the lock, so the versions are
    /// every state the document went through before its last, each once:
    /// as many lines as the saves before it, each a prefix of the end.
    @Test func twoProcessesKeepingVersionsKeepEveryReplacedVersionOnce() async throws {
        let directory = try TemporaryDirectory()
        let document = try Self.newDocument("Shared.lines", in: directory)
        let edits = TestSizes.pick(full: 12, reduced: 5)

        let runs = try await Self.run(writers: ["a", "b"].map { ["append-lines", document.path, $0, "\(edits)", "--versions"] })

        for run in runs { #expect(run.status == 0 && run.stdout == "saved \(edits)\n", "\(run.stderr)") }
        let lines = try Self.lines(of: document)
        #expect(lines.count == 2 * edits)
        let folder = directory.appending(".Shared.lines.fwk-versions")
        let versions = try Disk.names(in: folder)
        #expect(versions.count == 2 * edits, "\(versions)")
        var kept: [[String]] = []
        for version in versions {
            let file = folder.appendingPathComponent(version).appendingPathComponent("lines.txt")
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            kept.append(text.split(separator: "\n").map(String.init))
        }
        #expect(kept.map(\.count) == Array(0..<(2 * edits)), "one version a save, in the order saved")
        #expect(kept.allSatisfy { $0 == Array(lines.prefix($0.count)) })
        #expect(try Disk.names(in: directory.url) == [".Shared.lines.fwk-versions", "Shared.lines"])
    }

    /// Code written for Apple's systems writes a package in place, in
    /// steps, inside `NSFileCoordinator`'s coordinated write: controllers in
    /// two other processes saving the same package never read it midway
    /// (the document refuses a mix) and never save over it unseen.
    @Test func aCoordinatedWriteTakesTurnsWithControllers() async throws {
        let directory = try TemporaryDirectory()
        let document = try Self.newDocument("Shared.lines", in: directory)
        let edits = TestSizes.pick(full: 20, reduced: 6)

        async let runs = Self.run(writers: ["a", "b"].map { ["append-lines", document.path, $0, "\(edits)"] })
        let coordinated = try await onThreadOfItsOwn {
            var errors: [String] = []
            for edit in 0..<edits {
                var error: NSError?
                NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: document, options: .forMerging, error: &error) { url in
                    do {
                        try Self.appendInPlace("t-0-\(edit)", to: url)
                    } catch {
                        errors.append("\(error)")
                    }
                }
                if let error { errors.append("\(error)") }
                usleep(20_000)  // spread over the writers' run
            }
            return errors
        }

        #expect(coordinated.isEmpty, "\(coordinated)")
        for run in try await runs { #expect(run.status == 0 && run.stdout == "saved \(edits)\n", "\(run.stderr)") }
        let lines = try Self.lines(of: document)
        #expect(Self.missingOrRepeated(in: lines, writers: ["a", "b", "t"], controllers: 1, edits: edits).isEmpty)
        #expect(try Disk.names(in: directory.url) == ["Shared.lines"])
    }

    /// The lock file, while held, is beside the document, writable by
    /// every user whatever the umask (the test process's takes group and
    /// other write away; another user who may save the document must
    /// open it for writing), and gone when let go.
    @Test func theLockFileIsBesideTheDocumentForAnyUserWhileHeld() throws {
        let directory = try TemporaryDirectory()
        let document = try Self.newDocument("Held.lines", in: directory)
        let lockFile = directory.appending(".Held.lines.fwk-lock")
        var mode: mode_t?
        var error: NSError?
        NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: document, error: &error) { _ in
            mode = Disk.status(lockFile).st_mode & 0o7777
        }
        #expect(error == nil)
        #expect(mode == 0o666)
        #expect(try Disk.names(in: directory.url) == ["Held.lines"])
    }

    /// A save whose folder is missing cannot take the lock there, and says
    /// that the folder is what is wrong; nothing is made.
    @Test func aSaveIntoAMissingFolderSaysSo() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Missing/New.txt")

        let error = try await #require(throws: DocumentError.self) {
            try await DocumentController(newDocument: TextDocument(text: "new")).save(to: url)
        }

        #expect(error.code == .writeFailed)
        #expect(error.description.hasPrefix("\"\(url.path)\": cannot be saved: its folder cannot be opened: "), "\(error)")
        #expect(try Disk.names(in: directory.url) == [])
    }

    /// Appends `line` to the lines package at `url` as a program that
    /// writes it in place would: each file rewritten in turn, with pauses
    /// between, so that an uncoordinated reader would find a mix.
    static func appendInPlace(_ line: String, to url: URL) throws {
        let path = url.appendingPathComponent("lines.txt")
        let old = (try? String(contentsOf: path, encoding: .utf8)) ?? ""
        let lines = old.split(separator: "\n").map(String.init) + [line]
        try Disk.write(lines.map { $0 + "\n" }.joined(), to: path)
        usleep(2_000)
        try Disk.write("\(lines.count)", to: url.appendingPathComponent("count"))
        usleep(2_000)
        try Disk.write(line, to: url.appendingPathComponent("last"))
    }

    /// An empty document named `name` in `directory`: a package, an empty
    /// zip container or an empty file.
    static func newDocument(_ name: String, in directory: TemporaryDirectory) throws -> URL {
        let url = directory.appending(name)
        switch url.pathExtension {
        case "lines": try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        case "lineszip": try Disk.write(Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)), to: url)
        default: try Disk.write(Data(), to: url)
        }
        return url
    }

    /// Runs `fwk-test-child` once for each list of arguments, all at once,
    /// and waits for them all.
    static func run(writers: [[String]]) async throws -> [CommandResult] {
        try await withThrowingTaskGroup(of: (Int, CommandResult).self) { group in
            for (index, arguments) in writers.enumerated() {
                group.addTask { (index, try await ChildProcess.run(KillHarness.child.path, arguments)) }
            }
            var results: [Int: CommandResult] = [:]
            for try await (index, result) in group { results[index] = result }
            return writers.indices.map { results[$0]! }
        }
    }

    /// The lines the document at `url` holds.
    static func lines(of url: URL) throws -> [String] {
        let data: Data
        switch url.pathExtension {
        case "lines": data = try Data(contentsOf: url.appendingPathComponent("lines.txt"))
        case "lineszip":
            let container = try ArchiveReader.fileWrapper(contentsOf: url, formats: .zip)
            data = try container.fileWrappers?["lines.txt"]?.readRegularFileContents() ?? Data()
        default: data = try Data(contentsOf: url)
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The lines `WRITER-C-I` that `lines` lacks or holds more than once.
    static func missingOrRepeated(in lines: [String], writers: [String], controllers: Int, edits: Int) -> [String] {
        var counts: [String: Int] = [:]
        for line in lines { counts[line, default: 0] += 1 }
        var wrong = counts.filter { $0.value != 1 }.map(\.key)
        for writer in writers {
            for controller in 0..<controllers {
                for edit in 0..<edits where counts["\(writer)-\(controller)-\(edit)"] == nil {
                    wrong.append("\(writer)-\(controller)-\(edit)")
                }
            }
        }
        return wrong.sorted()
    }
}

/// Reads a lines package's files on a thread of its own, over and over
/// until stopped, each time coordinated (`NSFileCoordinator`, reading):
/// its names, then each file, by path, as a program that knows nothing of
/// the document would. A version is whole when its `count` and `last`
/// agree with its `lines.txt`.
final class PackageReader: Sendable {
    struct Reads: Sendable {
        var whole = 0
        var mixed: [String] = []
    }

    private let reads = Mutex(Reads())
    private let stopped = Atomic(false)
    private let done = DispatchSemaphore(value: 0)

    init(_ url: URL) {
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .acquiring) {
                var error: NSError?
                NSFileCoordinator(filePresenter: nil).coordinate(readingItemAt: url, options: [], error: &error) { url in
                    let verdict = Self.read(url)
                    reads.withLock { reads in
                        if let verdict { reads.mixed.append(verdict) } else { reads.whole += 1 }
                    }
                }
                if let error { reads.withLock { $0.mixed.append("coordination failed: \(error)") } }
            }
            done.signal()
        }
    }

    /// Nil for a whole version (or the empty package before the first save), else what disagrees.
    private static func read(_ url: URL) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return "cannot list \(url.path)" }
        if names.isEmpty { return nil }
        guard names.sorted() == ["count", "last", "lines.txt"] else { return "names \(names.sorted())" }
        guard let all = try? String(contentsOf: url.appendingPathComponent("lines.txt"), encoding: .utf8),
              let count = try? String(contentsOf: url.appendingPathComponent("count"), encoding: .utf8),
              let last = try? String(contentsOf: url.appendingPathComponent("last"), encoding: .utf8)
        else { return "a file vanished while read" }
        let lines = all.split(separator: "\n")
        return count == "\(lines.count)" && last == String(lines.last ?? "") ? nil : "\(lines.count) lines but count \(count), last \(last)"
    }

    /// Stops reading; what was read.
    func stop() -> Reads {
        stopped.store(true, ordering: .releasing)
        done.wait()
        return reads.withLock { $0 }
    }
}
