import Foundation
import Testing
import TestSupport

/// `wrapinspect cat`: a member's bytes from a bundle or an archive, never
/// through a symbolic link.
@Suite("wrapinspect cat")
struct CatTests {
    @Test(arguments: ["", "zip", "tar.zst", "7z"])
    func printsAMemberByteForByte(ending: String) throws {
        let journal = try SampleJournal()
        var input = "Travel.journal"
        if !ending.isEmpty {
            input = "Travel.\(ending)"
            let pack = try WrapInspectProcess.run(["pack", "Travel.journal", input], in: journal.directory)
            try #require(pack.status == 0, "\(pack.stderr)")
        }
        for member in ["index.json", "Entries/2026-05-02 Sintra \u{2013} Pal\u{E1}cio da Pena.md", "Media/harbour.jpg"] {
            let result = try WrapInspectProcess.run(["cat", input, member], in: journal.directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutBytes == Array(try Data(contentsOf: journal.url(member))), "\(member)")
        }
    }

    @Test func aHardLinkGivesTheBytesOfTheFileItNames() throws {
        let journal = try SampleJournal()
        try DigestTests.shell("cd Travel.journal && ln index.json Media/index-copy.json && bsdtar -cf ../linked.tar *", in: journal.directory)
        let list = try Disk.run("/bin/sh", ["-c", "bsdtar -tvf '\(journal.directory.path)/linked.tar' | grep -q 'link to'"])
        try #require(list.status == 0, "bsdtar stored a hard link")
        let result = try WrapInspectProcess.run(["cat", "linked.tar", "Media/index-copy.json"], in: journal.directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutBytes == Array(try Data(contentsOf: journal.url("index.json"))))
    }

    @Test(arguments: [
        ("Travel.journal", "Latest.md", #"wrapinspect: Travel.journal: "Latest.md": "Latest.md" is a symbolic link (to "Entries/2026-05-03 Porto.md"), which is not followed"#),
        ("Travel.journal", "Cover/harbour.jpg", #"wrapinspect: Travel.journal: "Cover/harbour.jpg": "Cover" is a symbolic link (to "Media"), which is not followed"#),
        ("Travel.journal", "Media", #"wrapinspect: Travel.journal: "Media": the member is a directory"#),
        ("Travel.journal", "../secret", #"wrapinspect: Travel.journal: "../secret": the member's path leaves the tree"#),
        ("Travel.journal", "missing.md", #"Travel.journal/missing.md") failed: No such file or directory"#),
        ("Travel.zip", "Latest.md", #"wrapinspect: Travel.zip: "Latest.md": the member is a symbolic link (to "Entries/2026-05-03 Porto.md"), which is not followed"#),
        ("Travel.zip", "missing.md", #"wrapinspect: Travel.zip: "missing.md": the archive has no such member"#),
        ("Travel.journal/index.json", "index.json", #"wrapinspect: Travel.journal/index.json: "index.json": the input is a single file, whose only member is ".""#),
    ])
    func refusesWhatIsNotAFileOfTheTree(input: String, member: String, message: String) throws {
        let journal = try SampleJournal()
        let pack = try WrapInspectProcess.run(["pack", "Travel.journal", "Travel.zip"], in: journal.directory)
        try #require(pack.status == 0)
        let result = try WrapInspectProcess.run(["cat", input, member], in: journal.directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func aFlatFilesOnlyMemberIsItself() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["cat", "Travel.journal/index.json", "."], in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stdoutBytes == Array(try Data(contentsOf: journal.url("index.json"))))
    }
}
