import Foundation
import Testing
import TestSupport

/// The notes example run as a user runs it: a child process per command.
@Suite struct NotesExampleTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Runs `notes-example arguments...` in the test's directory and
    /// expects it to succeed; returns what it printed.
    @discardableResult
    func notes(_ arguments: String...) throws -> String {
        let result = try NotesExampleProcess.run(arguments, in: directory.url)
        #expect(result.status == 0, "notes-example \(arguments) failed: \(result.stderr)")
        #expect(result.stderr == "")
        return result.stdout
    }

    @Test func createAddListShowAndExportAsZip() throws {
        #expect(try notes("create", "Trip.notes") == "Created Trip.notes.\n")
        #expect(try notes("add", "Trip.notes", "Day 1", "Arrived in Lisbon.") == "Added note 1 to Trip.notes.\n")
        #expect(try notes("add", "Trip.notes", "Day 2", "Tram 28 to the castle.") == "Added note 2 to Trip.notes.\n")
        #expect(try notes("list", "Trip.notes") == "Trip: 2 notes\n1  Day 1\n2  Day 2\n")
        #expect(try notes("show", "Trip.notes", "2") == "Day 2\n\nTram 28 to the castle.\n")
        let package = directory.appending("Trip.notes")
        #expect(try Disk.names(in: package) == ["Notes", "index.json"])
        #expect(try Disk.names(in: package.appendingPathComponent("Notes")) == ["1.txt", "2.txt"])

        #expect(try notes("export", "Trip.notes", "Trip.notesz") == "Saved a copy of Trip.notes as Trip.notesz.\n")
        let unzip = try ChildProcess.run("/usr/bin/unzip", ["-Z1", directory.appending("Trip.notesz").path])
        #expect(unzip.status == 0)
        let entries = Set(unzip.stdoutLines.map(String.init))
        #expect(entries.isSuperset(of: ["index.json", "Notes/1.txt", "Notes/2.txt"]), "unzip lists \(entries)")
        // The zip container opens as notes too, and the package is as it was.
        #expect(try notes("list", "Trip.notesz") == "Trip: 2 notes\n1  Day 1\n2  Day 2\n")
        #expect(try notes("list", "Trip.notes") == "Trip: 2 notes\n1  Day 1\n2  Day 2\n")
    }

    @Test func addingANoteWritesOnlyThatNoteAndTheIndex() throws {
        try notes("create", "Journal.notes", "--title", "Journal")
        for day in 1...3 {
            try notes("add", "Journal.notes", "Day \(day)", String(repeating: "Walked. ", count: day * 100))
        }
        let noteFiles = directory.appending("Journal.notes/Notes")
        let inodes = (1...3).map { Disk.inode(noteFiles.appendingPathComponent("\($0).txt")) }
        let index = Disk.inode(directory.appending("Journal.notes/index.json"))

        try notes("add", "Journal.notes", "Day 4", "Rain.")
        #expect((1...3).map { Disk.inode(noteFiles.appendingPathComponent("\($0).txt")) } == inodes, "the other notes were not rewritten")
        #expect(Disk.inode(directory.appending("Journal.notes/index.json")) != index, "the index was rewritten")
        #expect(try String(contentsOf: noteFiles.appendingPathComponent("4.txt"), encoding: .utf8) == "Rain.")
        #expect(try notes("list", "Journal.notes") == "Journal: 4 notes\n1  Day 1\n2  Day 2\n3  Day 3\n4  Day 4\n")
    }

    @Test(arguments: [
        (["list", "Missing.notes"], "Missing.notes", "cannot be read"),
        (["list", "NoIndex.notes"], "NoIndex.notes", "The notes package has no index.json."),
        (["list", "Garbage.notesz"], "Garbage.notesz", "zip"),
        (["list", "Letter.txt"], "Letter.txt", "cannot be opened"),
        (["add", "Letter.txt", "Title", "Text"], "Letter.txt", "cannot be opened"),
        (["create", "Letter.txt"], "Letter.txt", "is not a notes file name"),
        (["create", "NoIndex.notes"], "NoIndex.notes", "already exists"),
        (["export", "NoIndex.notes", "Copy.zip"], "Copy.zip", "is not a notes file name"),
    ])
    func badInputExitsTwoNamingTheFile(arguments: [String], file: String, message: String) throws {
        try FileManager.default.createDirectory(at: directory.appending("NoIndex.notes/Notes"), withIntermediateDirectories: true)
        try Disk.write("not a zip", to: directory.appending("Garbage.notesz"))
        try Disk.write("Dear reader,", to: directory.appending("Letter.txt"))

        let result = try NotesExampleProcess.run(arguments, in: directory.url)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("\"\(directory.appending(file).standardizedFileURL.path)\""), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }

    @Test func badUsageExitsTwoWithTheUsage() throws {
        let result = try NotesExampleProcess.run(["add", "Trip.notes", "Only a title"], in: directory.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("Missing expected argument '<text>'"))
        #expect(result.stderr.contains("Usage: notes-example add"))
    }

    @Test func helpShowsExamples() throws {
        let help = try notes("--help")
        #expect(help.contains("notes-example add Trip.notes \"Day 1\" \"Arrived in Lisbon.\""))
        #expect(help.contains("export"))
    }
}
