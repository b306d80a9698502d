import Foundation
import Glibc
import Testing
import TestSupport

/// `wrapinspect diff` run as a child process on private copies of the
/// sample document, `Fixtures/Travel.journal`: a scripted edit is found,
/// each kind of change and nothing else, and reported the same whichever
/// forms (bundle, zip, tar, manifest file) are compared.
@Suite("wrapinspect diff")
struct DiffTests {
    /// The time every entry of both copies starts with: 2026-05-01 10:00:00
    /// UTC. Zip keeps only whole seconds (and a zip whose times are all even
    /// is taken to keep two-second DOS times), so every time the edit sets
    /// is a whole minute from it: the forms then record the same times and
    /// can report the same values.
    static let baseTime = 1_777_629_600

    /// The sample as `Travel.journal` and a copy with every kind of change
    /// made to it as `Edited.journal`, in one temporary directory.
    struct EditedSample {
        let journal: SampleJournal
        var directory: URL { journal.directory }

        init(for test: String = #function) throws {
            journal = try SampleJournal(for: test)
            setTimes(below: journal.url)
            try ChildProcess.run("/bin/cp", ["-a", journal.url.path, edited.path])
            try edit()
        }

        var edited: URL { directory.appendingPathComponent("Edited.journal") }

        /// Adds, removes, modifies, chmods, touches, replaces a file with a
        /// symlink and renames a file: one of each kind of change.
        private func edit() throws {
            let entries = edited.appendingPathComponent("Entries")
            // Added.
            let coimbra = entries.appendingPathComponent("2026-05-04 Coimbra.md")
            try Data("# Coimbra\n\nThe university library.\n".utf8).write(to: coimbra)
            // Removed.
            try FileManager.default.removeItem(at: edited.appendingPathComponent("index.json"))
            // Contents changed, with the new time an edit gives.
            let lisbon = entries.appendingPathComponent("2026-05-01 Lisbon.md")
            let handle = try FileHandle(forWritingTo: lisbon)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("\nAnd the trams.\n".utf8))
            try handle.close()
            Self.setTime(lisbon, minutes: 5)
            // Mode changed.
            chmod(edited.appendingPathComponent("Scripts/export.sh").path, 0o700)
            // Touched.
            Self.setTime(edited.appendingPathComponent("QuickLook/Thumbnail.png"), minutes: 10)
            // A file replaced by a symbolic link.
            let porto = entries.appendingPathComponent("2026-05-03 Porto.md")
            try FileManager.default.removeItem(at: porto)
            try FileManager.default.createSymbolicLink(atPath: porto.path, withDestinationPath: "../Media/harbour.jpg")
            // Moved: a name with non-ASCII characters becomes a plain one.
            try FileManager.default.moveItem(
                at: entries.appendingPathComponent("2026-05-02 Sintra \u{2013} Pal\u{E1}cio da Pena.md"),
                to: entries.appendingPathComponent("2026-05-02 Sintra.md"))
            // New entries get the base time; directories keep the times the
            // edit gave them, which diff must not report (they follow from
            // the entries that came and went).
            Self.setTime(coimbra, minutes: 0)
            Self.setTime(porto, minutes: 0)
        }

        /// Sets `url`'s modification time (not following a symlink) to
        /// ``DiffTests/baseTime`` plus `minutes`.
        static func setTime(_ url: URL, minutes: Int) {
            // The access time is left alone (UTIME_OMIT, which Glibc's module does not export).
            let omit = (1 << 30) - 2
            var times = [timespec(tv_sec: 0, tv_nsec: omit), timespec(tv_sec: baseTime + 60 * minutes, tv_nsec: 0)]
            utimensat(AT_FDCWD, url.path, &times, AT_SYMLINK_NOFOLLOW)
        }

        /// Sets every time below `root`, and `root`'s, to ``DiffTests/baseTime``.
        private func setTimes(below root: URL) {
            for path in (try? FileManager.default.subpathsOfDirectory(atPath: root.path)) ?? [] {
                Self.setTime(root.appendingPathComponent(path), minutes: 0)
            }
            Self.setTime(root, minutes: 0)
        }

        /// Runs `wrapinspect arguments...` in the directory.
        func wrapinspect(_ arguments: String...) throws -> CommandResult {
            try WrapInspectProcess.run(arguments, in: directory)
        }

        /// `wrapinspect pack` or `snapshot` into `name`, which must succeed.
        func make(_ arguments: String...) throws {
            let result = try WrapInspectProcess.run(arguments, in: directory)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
    }

    /// What `diff Travel.journal Edited.journal` prints: each change once,
    /// in path order (a move at its old path), then the summary. The
    /// original's times are all whole seconds, so its manifest judges that
    /// it keeps times to the second, and times are compared to the second.
    static let expectedText = """
        M Entries/2026-05-01 Lisbon.md (691 B -> 707 B): mtime 2026-05-01 10:00:00 -> 2026-05-01 10:05:00
        R Entries/2026-05-02 Sintra \u{2013} Pal\u{E1}cio da Pena.md -> Entries/2026-05-02 Sintra.md
        T Entries/2026-05-03 Porto.md: file (612 B) -> symlink (-> ../Media/harbour.jpg)
        + Entries/2026-05-04 Coimbra.md (35 B)
        m QuickLook/Thumbnail.png: mtime 2026-05-01 10:00:00 -> 2026-05-01 10:10:00
        m Scripts/export.sh: mode 0755 -> 0700
        - index.json (853 B)
        7 changes: 1 added, 1 removed, 1 contents changed, 1 kind changed, 2 metadata changed, 1 moved (times compared to 1 s)

        """

    @Test func findsEachKindOfChangeAndNothingElse() throws {
        let sample = try EditedSample()
        let result = try sample.wrapinspect("diff", "Travel.journal", "Edited.journal")
        #expect(result.stdout == Self.expectedText)
        #expect(result.stderr == "")
        #expect(result.status == 1)
    }

    /// The `changes` array of `diff --json`, with its keys sorted, for comparing reports.
    static func changes(_ result: CommandResult) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let changes = try #require(object["changes"] as? [Any])
        return String(decoding: try JSONSerialization.data(withJSONObject: changes, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func saysTheSameWhicheverFormsAreCompared() throws {
        let sample = try EditedSample()
        for name in ["Travel", "Edited"] {
            try sample.make("pack", "\(name).journal", "\(name).zip")
            try sample.make("pack", "\(name).journal", "\(name).tar")
            try sample.make("snapshot", "\(name).journal", "-o", "\(name).json")
        }
        let reference = try sample.wrapinspect("diff", "--json", "Travel.journal", "Edited.journal")
        #expect(reference.status == 1)
        let expected = try Self.changes(reference)
        #expect(expected.contains("\"change\":\"kind\""))
        let pairs = [
            ("Travel.zip", "Edited.zip"), ("Travel.tar", "Edited.tar"), ("Travel.journal", "Edited.tar"),
            ("Travel.zip", "Edited.journal"), ("Travel.json", "Edited.json"), ("Travel.json", "Edited.zip"),
        ]
        for (old, new) in pairs {
            let result = try sample.wrapinspect("diff", "--json", old, new)
            #expect(result.status == 1, "\(old) \(new): \(result.stderr)")
            #expect(try Self.changes(result) == expected, "\(old) against \(new)")
        }
        // The text agrees too, but for the note on how finely times were
        // compared: the zips' times are all even, which reads as DOS times.
        let zips = try sample.wrapinspect("diff", "Travel.zip", "Edited.zip")
        let expectedLines = Self.expectedText.split(separator: "\n")
        #expect(zips.stdoutLines.dropLast() == expectedLines.dropLast())
        #expect(zips.stdoutLines.last == expectedLines.last?.replacing("1 s", with: "2 s"))
    }

    @Test func identicalTreesExitZeroAndPrintNothing() throws {
        let sample = try EditedSample()
        try sample.make("pack", "Travel.journal", "Travel.zip")
        for other in ["Travel.journal", "Travel.zip"] {
            let result = try sample.wrapinspect("diff", "Travel.journal", other)
            #expect(result.status == 0, "\(other): \(result.stderr)")
            #expect(result.stdout == "")
            #expect(result.stderr == "")
        }
    }

    /// A folder whose only file moved out, and the new folder it moved
    /// into, are not empty: what moved is counted apart (text and JSON).
    @Test func entriesThatMovedAreNotCountedAsEmptiness() throws {
        let directory = try TemporaryDirectory()
        try Disk.write("postcard\n", to: directory.appending("A/Old folder/card.txt"))
        try Disk.write("kept\n", to: directory.appending("A/Old folder/kept.txt"))
        try Disk.write("postcard\n", to: directory.appending("B/New folder/card.txt"))
        try Disk.write("new\n", to: directory.appending("B/New folder/new.txt"))
        try Disk.write("notes\n", to: directory.appending("A/Gone/notes.txt"))
        try Disk.write("notes\n", to: directory.appending("B/notes.txt"))
        let result = try WrapInspectProcess.run(["diff", "--ignore", "mtime", "A", "B"], in: directory.url)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").sorted() == [
            "+ New folder/ (directory, 2 entries, 1 moved in)",
            "- Gone/ (directory, 1 entry moved out)",
            "- Old folder/ (directory, 2 entries, 1 moved out)",
            "5 changes: 1 added, 2 removed, 2 moved (ignoring mtime)",
            "R Gone/notes.txt -> notes.txt",
            "R Old folder/card.txt -> New folder/card.txt",
        ].sorted())

        let json = try WrapInspectProcess.run(["diff", "--json", "--ignore", "mtime", "A", "B"], in: directory.url)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let changes = try #require(object["changes"] as? [[String: Any]])
        let gone = try #require(changes.first { $0["path"] as? String == "Gone" })
        #expect(gone["entries"] as? Int == 0)
        #expect(gone["entriesMoved"] as? Int == 1)
    }

    @Test func aMissingInputExitsTwoNamingIt() throws {
        let sample = try EditedSample()
        let result = try sample.wrapinspect("diff", "Travel.journal", "Missing.journal")
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("wrapinspect: "))
        #expect(result.stderr.contains("Missing.journal"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func anUnknownIgnoredFieldIsBadUsage() throws {
        let sample = try EditedSample()
        let result = try sample.wrapinspect("diff", "--ignore", "mtime,colour", "Travel.journal", "Edited.journal")
        #expect(result.status == 2)
        #expect(result.stderr.contains("colour"))
    }

    @Test func ignoringMtimeHidesTheTouch() throws {
        let sample = try EditedSample()
        let result = try sample.wrapinspect("diff", "--ignore", "mtime", "Travel.journal", "Edited.journal")
        #expect(result.status == 1)
        #expect(!result.stdout.contains("Thumbnail.png"))
        #expect(result.stdoutLines.dropLast().allSatisfy { !$0.contains("mtime") })
        #expect(result.stdoutLines.first == "M Entries/2026-05-01 Lisbon.md (691 B -> 707 B)")
        #expect(result.stdoutLines.last == "6 changes: 1 added, 1 removed, 1 contents changed, 1 kind changed, 1 metadata changed, 1 moved (ignoring mtime; times compared to 1 s)")

        // Ignoring the mode too hides the chmod.
        let both = try sample.wrapinspect("diff", "--ignore", "mtime", "--ignore", "mode", "Travel.journal", "Edited.journal")
        #expect(!both.stdout.contains("export.sh"))
    }

    @Test func jsonIsOneVersionedObject() throws {
        let sample = try EditedSample()
        let result = try sample.wrapinspect("diff", "--json", "Travel.journal", "Edited.journal")
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 2)
        #expect((object["old"] as? [String: Any])?["name"] as? String == "Travel.journal")
        let summary = try #require(object["summary"] as? [String: Int])
        #expect(summary == ["added": 1, "removed": 1, "contents": 1, "kind": 1, "metadata": 2, "moved": 1, "total": 7])
        let changes = try #require(object["changes"] as? [[String: Any]])
        let move = try #require(changes.first { $0["change"] as? String == "moved" })
        #expect(move["path"] as? String == "Entries/2026-05-02 Sintra \u{2013} Pal\u{E1}cio da Pena.md")
        #expect(move["to"] as? String == "Entries/2026-05-02 Sintra.md")
        let chmod = try #require(changes.first { $0["path"] as? String == "Scripts/export.sh" })
        #expect(chmod["fields"] as? [String: [String: String]] == ["mode": ["old": "0755", "new": "0700"]])
        // Identical trees: an empty list and exit 0.
        let same = try sample.wrapinspect("diff", "--json", "Travel.journal", "Travel.journal")
        #expect(same.status == 0)
        #expect(try Self.changes(same) == "[]")
    }

    @Test func namesThatAreNotUTF8AreEscapedInTextAndKeptInJSON() throws {
        let sample = try EditedSample()
        // "caf\xE9\n.md": Latin-1, with a newline.
        try sample.journal.createFile(named: Array("caf".utf8) + [0xE9, 0x0A] + Array(".md".utf8), in: "Drafts")
        let text = try sample.wrapinspect("diff", "Edited.journal", "Travel.journal")
        #expect(text.stdoutLines.contains("+ Drafts/caf\\xE9\\u{A}.md (0 B)"))
        let json = try sample.wrapinspect("diff", "--json", "Edited.journal", "Travel.journal")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let changes = try #require(object["changes"] as? [[String: Any]])
        let added = try #require(changes.first { $0["change"] as? String == "added" && ($0["path"] as? String)?.hasPrefix("Drafts/") == true })
        #expect(added["path"] as? String == "Drafts/caf\\xE9\\u{A}.md")
        #expect(added["pathBase64"] as? String == Data(Array("Drafts/caf".utf8) + [0xE9, 0x0A] + Array(".md".utf8)).base64EncodedString())
    }

    @Test func colourOnlyWhenAskedOrOnATerminalWithoutNoColor() throws {
        let sample = try EditedSample()
        // Standard output is a file here, so auto means none.
        #expect(try !Self.hasColour(sample.wrapinspect("diff", "Travel.journal", "Edited.journal").stdout))
        #expect(try !Self.hasColour(sample.wrapinspect("diff", "--color", "never", "Travel.journal", "Edited.journal").stdout))
        let always = try sample.wrapinspect("diff", "--color", "always", "Travel.journal", "Edited.journal")
        #expect(always.stdout.contains("\u{1B}[32m+\u{1B}[0m Entries/2026-05-04 Coimbra.md"))

        // On a terminal (script(1) gives one): colour, unless NO_COLOR is set and not empty.
        #expect(try Self.hasColour(Self.onTerminal(sample, environment: [:])))
        #expect(try Self.hasColour(Self.onTerminal(sample, environment: ["NO_COLOR": ""])))
        #expect(try !Self.hasColour(Self.onTerminal(sample, environment: ["NO_COLOR": "1"])))
        #expect(try Self.hasColour(Self.onTerminal(sample, environment: ["NO_COLOR": "1"], color: "always")))
    }

    /// Whether `text` holds an SGR sequence (`ESC [ 32 m`): colour, not the
    /// cursor movements a progress line may leave on a terminal.
    static func hasColour(_ text: String) -> Bool {
        text.contains(/\x{1B}\[[0-9;]*m/)
    }

    /// What `diff` writes to a terminal, run under `script` with `environment` added.
    static func onTerminal(_ sample: EditedSample, environment: [String: String], color: String = "auto") throws -> String {
        let executable = try #require(WrapInspectProcess.executableURL)
        let command = "\(executable.path) diff --color \(color) Travel.journal Edited.journal"
        var variables: [String: String?] = ["NO_COLOR": nil, "TERM": "xterm"]
        variables.merge(environment.mapValues { $0 }) { $1 }
        let output = sample.directory.appendingPathComponent(".terminal-\(UUID().uuidString)")
        try ChildProcess.run("/usr/bin/script", ["-q", "-e", "-c", command, output.path], in: sample.directory, environment: variables)
        return String(decoding: try Data(contentsOf: output), as: UTF8.self)
    }
}
