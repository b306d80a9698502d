import Foundation
import Testing
import TestSupport

/// `wrapinspect dump` run as a child process on a private copy of the
/// sample document, `Fixtures/Travel.journal`.
@Suite("wrapinspect dump")
struct DumpTests {
    /// The whole output for the sample, as a person reads it.
    static let sampleTree = """
        drwxr-xr-x             Travel.journal/
        lrwxrwxrwx             ├── Cover -> Media
        drwxr-xr-x             ├── Drafts/
        drwxr-xr-x             ├── Entries/
        -rw-r--r--      691 B  │   ├── 2026-05-01 Lisbon.md
        -rw-r--r--      593 B  │   ├── 2026-05-02 Sintra \u{2013} Pal\u{E1}cio da Pena.md
        -rw-r--r--      612 B  │   └── 2026-05-03 Porto.md
        lrwxrwxrwx             ├── Latest.md -> Entries/2026-05-03 Porto.md
        drwxr-xr-x             ├── Media/
        -rw-r--r--  268.7 KiB  │   └── harbour.jpg
        drwxr-xr-x             ├── QuickLook/
        -rw-r--r--   36.5 KiB  │   └── Thumbnail.png
        drwxr-xr-x             ├── Scripts/
        -rwxr-xr-x      391 B  │   └── export.sh
        -rw-r--r--      853 B  └── index.json
        5 directories, 7 files, 2 symlinks, 315656 bytes (308.3 KiB)

        """

    @Test func printsTheSampleTree() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(result.exited)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == Self.sampleTree)
    }

    @Test func symlinksShowTheirTargetsAndAreNotFollowed() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdoutLines.contains("lrwxrwxrwx             ├── Cover -> Media"))
        #expect(result.stdoutLines.contains("lrwxrwxrwx             ├── Latest.md -> Entries/2026-05-03 Porto.md"))
        // Following Cover would list harbour.jpg a second time.
        #expect(result.stdoutLines.filter { $0.hasSuffix("harbour.jpg") }.count == 1)
    }

    @Test func namesArePrintedByteForByte() throws {
        let journal = try SampleJournal()
        // A decomposed spelling (e + U+0301) beside the sample's composed one.
        let decomposed = "Cafe\u{301} Majestic.md"
        try journal.createFile("Entries/\(decomposed)")
        let result = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        let composed = "2026-05-02 Sintra \u{2013} Pal\u{E1}cio da Pena.md"
        // Bytes, not Strings: String comparison would let NFC and NFD match.
        #expect(result.stdoutBytes.containsSubsequence(Array(composed.utf8)))
        #expect(result.stdoutBytes.containsSubsequence(Array(("└── " + decomposed).utf8)))
        #expect(!result.stdoutBytes.containsSubsequence(Array("Caf\u{E9}".utf8)))
    }

    @Test func aNameThatIsNotUTF8IsShownEscaped() throws {
        let journal = try SampleJournal()
        try journal.createFile(named: Array("Bad".utf8) + [0xFF] + Array(".md".utf8), in: "Entries")
        let result = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        // The byte is shown escaped; a real backslash would print as `\\`.
        #expect(result.stdoutLines.contains(#"-rw-r--r--        0 B  │   └── Bad\xFF.md"#))
    }

    @Test func entriesAreSortedByNameBytes() throws {
        let journal = try SampleJournal()
        // In String order "e\u{301}" (é) would follow "f"; its bytes (65 CC 81) come before.
        for name in ["f.md", "e\u{301}.md", "a.md", "Z.md"] {
            try journal.createFile("Drafts/\(name)")
        }
        let result = try WrapInspectProcess.run(["dump", "Travel.journal/Drafts"], in: journal.directory)
        #expect(result.status == 0)
        let expected = """
            drwxr-xr-x       Travel.journal/Drafts/
            -rw-r--r--  0 B  ├── Z.md
            -rw-r--r--  0 B  ├── a.md
            -rw-r--r--  0 B  ├── e\u{301}.md
            -rw-r--r--  0 B  └── f.md
            0 directories, 4 files, 0 symlinks, 0 bytes

            """
        #expect(result.stdoutBytes == Array(expected.utf8))
    }

    @Test func sizesAreHumanReadable() throws {
        let journal = try SampleJournal()
        let sizes: [(name: String, bytes: UInt64)] = [
            ("a", 0), ("b", 1023), ("c", 1024), ("d", 1_048_575), ("e", 1_572_864), ("f", 10 << 40),
        ]
        for (name, bytes) in sizes {
            try journal.createFile("Drafts/\(name)", size: bytes)
        }
        let result = try WrapInspectProcess.run(["dump", "Travel.journal/Drafts"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdoutLines == [
            "drwxr-xr-x            Travel.journal/Drafts/",
            "-rw-r--r--       0 B  ├── a",
            "-rw-r--r--    1023 B  ├── b",
            "-rw-r--r--   1.0 KiB  ├── c",
            "-rw-r--r--   1.0 MiB  ├── d",
            "-rw-r--r--   1.5 MiB  ├── e",
            "-rw-r--r--  10.0 TiB  └── f",
            "0 directories, 6 files, 0 symlinks, \(sizes.map(\.bytes).reduce(0, +)) bytes (10.0 TiB)",
        ])
    }

    @Test func modesAreShownAsLsShowsThem() throws {
        let journal = try SampleJournal()
        try FileManager.default.setAttributes([.posixPermissions: 0o4750], ofItemAtPath: journal.url("index.json").path)
        try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: journal.url("Drafts").path)
        let result = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdoutLines.contains("-rwxr-xr-x      391 B  │   └── export.sh"))
        #expect(result.stdoutLines.contains("-rwsr-x---      853 B  └── index.json"))
        #expect(result.stdoutLines.contains("drwxrwxrwt             ├── Drafts/"))
    }

    @Test func emptyDirectoryIsListedWithoutChildren() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        let lines = result.stdoutLines
        let drafts = try #require(lines.firstIndex(of: "drwxr-xr-x             ├── Drafts/"))
        #expect(lines[drafts + 1] == "drwxr-xr-x             ├── Entries/")

        try FileManager.default.removeItem(at: journal.url("Drafts"))
        let without = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(!without.stdout.contains("Drafts"))
        #expect(without.stdoutLines.last?.hasPrefix("4 directories, 7 files, 2 symlinks, ") == true)
    }

    @Test func summaryCountsEntriesAndAddsUpFileSizes() throws {
        let journal = try SampleJournal()
        try journal.createFile("Drafts/draft.md", size: 1000)
        let total = try journal.totalFileBytes()
        let result = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        #expect(total == 315_656 + 1000)
        #expect(result.stdoutLines.last == "5 directories, 8 files, 2 symlinks, \(total) bytes (309.2 KiB)")
    }

    @Test func maxDepthOneShowsTopLevelAndCountsTheRest() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "--max-depth", "1", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == """
            drwxr-xr-x         Travel.journal/
            lrwxrwxrwx         ├── Cover -> Media
            drwxr-xr-x         ├── Drafts/
            drwxr-xr-x         ├── Entries/ (3 entries not shown)
            lrwxrwxrwx         ├── Latest.md -> Entries/2026-05-03 Porto.md
            drwxr-xr-x         ├── Media/ (1 entry not shown)
            drwxr-xr-x         ├── QuickLook/ (1 entry not shown)
            drwxr-xr-x         ├── Scripts/ (1 entry not shown)
            -rw-r--r--  853 B  └── index.json
            5 directories, 7 files, 2 symlinks, 315656 bytes (308.3 KiB)

            """)
    }

    @Test func maxDepthZeroShowsThePathAlone() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "Travel.journal/", "--max-depth=0"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdoutLines == [
            "drwxr-xr-x  Travel.journal/ (14 entries not shown)",
            "5 directories, 7 files, 2 symlinks, 315656 bytes (308.3 KiB)",
        ])
    }

    @Test func deepMaxDepthShowsEverything() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "--max-depth", "2", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdout == DumpTests.sampleTree)
    }

    @Test func controlCharactersInNamesAreEscaped() throws {
        let journal = try SampleJournal()
        try journal.createFile(named: Array("new\nline\u{1B}[31m.md".utf8), in: "Drafts")
        let result = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdoutLines.contains(#"-rw-r--r--        0 B  │   └── new\u{A}line\u{1B}[31m.md"#))
        #expect(!result.stdout.contains("\u{1B}"))
        #expect(result.stdoutLines.count == DumpTests.sampleTree.split(separator: "\n").count + 1)
    }

    @Test func largeFileSizeIsReadFromAttributes() throws {
        let journal = try SampleJournal()
        // Sparse: 5 GiB and 1 byte. The size column narrows to "36.5 KiB".
        try journal.createFile("Media/harbour.jpg", size: (5 << 30) + 1)
        let result = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdoutLines.contains("-rw-r--r--   5.0 GiB  │   └── harbour.jpg"))
        #expect(result.stdoutLines.last == "5 directories, 7 files, 2 symlinks, \(315_656 - 275_181 + 5_368_709_121) bytes (5.0 GiB)")
    }

    @Test func aSymlinkGivenAsThePathIsShownNotFollowed() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "Travel.journal/Latest.md"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdoutLines == [
            "lrwxrwxrwx  Travel.journal/Latest.md -> Entries/2026-05-03 Porto.md",
            "0 directories, 0 files, 1 symlink, 0 bytes",
        ])
    }

    @Test func aFileGivenAsThePathIsOneLine() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "Travel.journal/Scripts/export.sh"], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdoutLines == [
            "-rwxr-xr-x  391 B  Travel.journal/Scripts/export.sh",
            "0 directories, 1 file, 0 symlinks, 391 bytes",
        ])
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in this array as consecutive bytes.
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// `wrapinspect dump --stored`: an archive's entries as libarchive reads
/// them, in order, nothing cleaned, checked or sorted.
@Suite("wrapinspect dump --stored")
struct StoredListingTests {
    @Test func entriesThatMakeNoTreeAreListedAsStored() throws {
        let journal = try SampleJournal()
        let archive = PackUnpackTests.hostile.appendingPathComponent("duplicate-path.tar").path
        let tree = try WrapInspectProcess.run(["dump", archive], in: journal.directory)
        #expect(tree.status == 0, "the same path twice reads as its last entry")
        #expect(tree.stdoutLines.count == 3, "the root, a.txt once, the totals: \(tree.stdout)")
        let stored = try WrapInspectProcess.run(["dump", "--stored", archive], in: journal.directory)
        #expect(stored.status == 0, "\(stored.stderr)")
        // MODE  SIZE  PATH, twice the same path; then the count and the sizes added up.
        let columns = stored.stdoutLines.dropLast().map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(columns.count == 2 && columns[0].last == columns[1].last, "\(stored.stdout)")
        let total = columns.compactMap { $0.count == 3 ? Int($0[1]) : nil }.reduce(0, +)
        #expect(stored.stdoutLines.last.map(String.init) == "2 entries, \(total) bytes in files")
    }

    @Test func theOrderIsTheArchivesAndLinksShowTheirTargets() throws {
        let journal = try SampleJournal()
        // index.json first, then the rest: not the order a tree would sort.
        try DigestTests.shell("cd Travel.journal && bsdtar -cf ../ordered.tar index.json Latest.md Cover", in: journal.directory)
        let stored = try WrapInspectProcess.run(["dump", "--stored", "ordered.tar"], in: journal.directory)
        #expect(stored.stdoutLines == [
            "-rw-r--r--         853  index.json",
            "lrwxrwxrwx           -  Latest.md -> Entries/2026-05-03 Porto.md",
            "lrwxrwxrwx           -  Cover -> Media",
            "3 entries, 853 bytes in files",
        ])
        let json = try WrapInspectProcess.run(["dump", "--stored", "--json", "ordered.tar"], in: journal.directory)
        let objects = try json.stdoutLines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["path"] as? String } == ["index.json", "Latest.md", "Cover"])
        #expect(objects[1]["target"] as? String == "Entries/2026-05-03 Porto.md")
    }

    @Test func aDirectoryHasNoStoredEntries() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "--stored", "Travel.journal"], in: journal.directory)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: Travel.journal: "), "\(result.stderr)")
    }
}
