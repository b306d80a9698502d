import Foundation
import Glibc
import Testing
import TestSupport

/// Failures and crashes at chosen system calls, made deterministic by the
/// funnel's fault hook (`fwk-test-child --fault=CALL:N:WHAT`): no root, no
/// full disk, no tmpfs mount. Beside, not instead of, the tests on a real
/// full file system (`FullDiskTests`) and the SIGKILL loops.
///
/// Each writer replaces an old item through `PendingReplacement`. A failed
/// call leaves the old item whole and nothing beside it; a call interrupted
/// by a signal (`EINTR`) is made again and the result is as without it; a
/// process killed at any step leaves the old item, and the next write
/// removes what the dead one left.
@Suite(.startsProcesses) struct FaultInjectionTests {
    struct Writer: Sendable, CustomTestStringConvertible {
        var label: String
        var arguments: [String]
        /// The name in the test's directory that the writer replaces.
        var replaced: String
        /// The call that makes the new item's files, and the one that
        /// brings them to the disk.
        var create: String
        var sync: String

        var testDescription: String { label }
        var isTree: Bool { !replaced.hasSuffix(".zip") }
    }

    static let save = Writer(label: "FileWrapper atomic save", arguments: ["save", "src", "saved"], replaced: "saved",
                             create: "openat(create)", sync: "syncfs")
    static let archive = Writer(label: "archive", arguments: ["pack", "zip", "src", "out.zip", "--reproducible"], replaced: "out.zip",
                                create: "write", sync: "fsync")
    static let document = Writer(label: "document saved in place", arguments: ["save-document", "src", "Doc.pkg"], replaced: "Doc.pkg",
                                 create: "openat(create)", sync: "syncfs")
    static let writers = [save, archive, document]

    /// A directory with `src` (the new contents) and the old item that
    /// each writer replaces.
    static func makeDirectory() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try Disk.write("new contents\n", to: directory.appending("src/a.txt"))
        try Disk.write("new b\n", to: directory.appending("src/b/c.txt"))
        // One time everywhere, so that two archives of `src` are the same bytes.
        for path in ["src/a.txt", "src/b/c.txt", "src/b", "src"] {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)],
                                                  ofItemAtPath: directory.appending(path).path)
        }
        for tree in ["saved", "Doc.pkg"] { try Disk.write("old contents\n", to: directory.appending("\(tree)/a.txt")) }
        try Disk.write("old\n", to: directory.appending("out.zip"))
        return directory
    }

    /// What stands for the replaced item's contents: its `a.txt`, or the
    /// archive's bytes.
    static func contents(of writer: Writer, in directory: TemporaryDirectory) throws -> Data {
        try Data(contentsOf: directory.appending(writer.isTree ? "\(writer.replaced)/a.txt" : writer.replaced))
    }

    static func run(_ writer: Writer, fault: String?, in directory: TemporaryDirectory) throws -> CommandResult {
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        return try ChildProcess.run(child, writer.arguments + (fault.map { ["--fault=\($0)"] } ?? []), in: directory.url)
    }

    static let failures: [(Writer, String, String)] = writers.flatMap { writer in [
        (writer, "\(writer.create):1:ENOSPC", "No space left on device"),
        (writer, "\(writer.sync):1:EIO", "Input/output error"),
        (writer, "renameat2:1:EROFS", "Read-only file system"),
    ] }

    @Test(arguments: failures)
    func aFailedCallLeavesTheOldItemAndNothingBesideIt(writer: Writer, fault: String, message: String) throws {
        let directory = try Self.makeDirectory()
        let names = try Disk.names(in: directory.url)
        let old = try Self.contents(of: writer, in: directory)

        let result = try Self.run(writer, fault: fault, in: directory)

        #expect(result.exited && result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try Self.contents(of: writer, in: directory) == old)
        #expect(try Disk.names(in: directory.url) == names)
    }

    static let interruptions: [(Writer, String)] = writers.flatMap { writer in [
        (writer, "\(writer.create):1:EINTR"), (writer, "\(writer.sync):1:EINTR"), (writer, "renameat2:1:EINTR"), (writer, "openat:2:EINTR"),
    ] }

    @Test(arguments: interruptions)
    func anInterruptedCallIsMadeAgain(writer: Writer, fault: String) throws {
        let reference = try Self.makeDirectory()
        try #require(try Self.run(writer, fault: nil, in: reference).status == 0)
        let directory = try Self.makeDirectory()

        let result = try Self.run(writer, fault: fault, in: directory)

        #expect(result.exited && result.status == 0, "\(result.stderr)")
        #expect(try Self.contents(of: writer, in: directory) == Self.contents(of: writer, in: reference))
        #expect(try Disk.names(in: directory.url) == Disk.names(in: reference.url))
    }

    static let crashes: [(Writer, String)] = writers.flatMap { writer in [
        // The second file created, for a tree: one is made, another not yet.
        (writer, "\(writer.create):\(writer.isTree ? 2 : 1):kill"), (writer, "\(writer.sync):1:kill"), (writer, "renameat2:1:kill"),
    ] }

    @Test(arguments: crashes)
    func aWriterKilledAtAnyStepLeavesTheOldItemForTheNextToReplace(writer: Writer, fault: String) throws {
        let directory = try Self.makeDirectory()
        let old = try Self.contents(of: writer, in: directory)

        let killed = try Self.run(writer, fault: fault, in: directory)

        #expect(!killed.exited && killed.status == SIGKILL, "\(killed.stderr)")
        #expect(try Self.contents(of: writer, in: directory) == old)
        let leftovers = { try Disk.names(in: directory.url).filter { $0.contains(".fwk-save-") } }
        #expect(try leftovers().count == 1, "the dead writer's temporary")

        let next = try Self.run(writer, fault: nil, in: directory)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try Self.contents(of: writer, in: directory) != old)
        #expect(try leftovers() == [])
    }
}
