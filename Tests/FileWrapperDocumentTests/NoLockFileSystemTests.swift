import FileWrapperDocument
import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 37, item 1: on a file system without `fcntl` locks (every lock
/// fails with `ENOLCK`, made so in `fwk-test-child` by
/// `--fault=fcntl(F_OFD_SETLKW):1+:ENOLCK`), opening and saving work as
/// before the locks: a save is checked against the stamp, and a refused
/// one says that saves are not ordered there. No lock file is left.
@Suite(.startsProcesses) struct NoLockFileSystemTests {
    static let noLocks = "--fault=fcntl(F_OFD_SETLKW):1+:ENOLCK"

    @Test func withoutLocksOpenAndSaveWorkAsBefore() async throws {
        let (directory, document, source) = try Self.documentAndSource()

        let run = try await ChildProcess.run(KillHarness.child.path, ["save-document", source.path, document.path, Self.noLocks])

        #expect(run.status == 0, "\(run.stderr)")
        #expect(try DiskTree(document).ignoringTimes == DiskTree(source).ignoringTimes)
        #expect(try Disk.names(in: document.deletingLastPathComponent()) == ["Shared.files"], "no lock file left")
        _ = directory
    }

    @Test func withoutLocksARefusedSaveSaysSavesAreOnlyChecked() async throws {
        let (directory, document, source) = try Self.documentAndSource()
        let before = try DiskTree(document).ignoringTimes

        let run = try await onThreadOfItsOwn {
            try Self.saveChangingInBetween(["save-document", source.path, document.path, Self.noLocks, "--pause-before-saving"]) {
                try Disk.write("theirs", to: document.appendingPathComponent("theirs.txt"))
            }
        }

        #expect(run.status == 2)
        #expect(run.stderr.contains("changed on disk since it was opened or last saved"), "\(run.stderr)")
        #expect(run.stderr.contains("saves are only checked here, not ordered: the file system does not lock files"), "\(run.stderr)")
        try FileManager.default.removeItem(at: document.appendingPathComponent("theirs.txt"))
        #expect(try DiskTree(document).ignoringTimes == before, "not overwritten")
        #expect(try Disk.names(in: document.deletingLastPathComponent()) == ["Shared.files"], "no lock file left")
        _ = directory
    }

    /// A package document (`Shared.files`, in a folder of its own) and a
    /// bundle with other files for `save-document` to make its files.
    static func documentAndSource() throws -> (TemporaryDirectory, URL, URL) {
        let directory = try TemporaryDirectory()
        let document = directory.appending("Document/Shared.files")
        let source = directory.appending("B.source")
        try Disk.writeVersion("A", files: 6, size: 100, at: document)
        try Disk.writeVersion("B", files: 6, size: 100, at: source)
        return (directory, document, source)
    }

    /// Runs `fwk-test-child arguments...` (which pauses before saving),
    /// runs `change` once the child has opened its document, then lets it
    /// save; how it ended, and what it wrote on standard error.
    static func saveChangingInBetween(_ arguments: [String], change: () throws -> Void) throws -> (status: CInt, stderr: String) {
        let input = try KillHarness.pipe()
        let output = try KillHarness.pipe()
        let errors = try KillHarness.pipe()
        defer { close(output.read); close(errors.read) }
        let spawned = Result {
            try ChildProcess.spawn(KillHarness.child.path, arguments, standardInput: input.read,
                                   standardOutput: output.write, standardError: errors.write)
        }
        close(input.read)
        close(output.write)
        close(errors.write)
        let pid: pid_t
        do { pid = try spawned.get() } catch { close(input.write); throw error }
        var opened = [UInt8](repeating: 0, count: 7)
        let said = read(output.read, &opened, opened.count)
        let changed = Result { if said == opened.count { try change() } }
        _ = write(input.write, "\n", 1)
        close(input.write)
        let (status, _) = ChildProcess.wait(for: pid)
        try changed.get()
        return (status, String(decoding: FileHandle(fileDescriptor: errors.read).readDataToEndOfFile(), as: UTF8.self))
    }
}
