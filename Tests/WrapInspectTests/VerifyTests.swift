import Foundation
import Testing
import TestSupport

/// `wrapinspect verify`: round trips through a bundle and every archive
/// format, judged under what each form can keep.
@Suite("wrapinspect verify")
struct VerifyTests {
    @Test func theSampleSurvivesEveryForm() throws {
        let journal = try SampleJournal()
        try Disk.setXattr("user.note", "kept in a bundle only", on: journal.url("index.json"))
        let result = try WrapInspectProcess.run(["verify", "--via", "all", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let forms = result.stdoutLines.map { $0.prefix { $0 != " " } }
        #expect(forms == ["bundle", "zip", "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst", "tar.lz4", "tar.lzma", "ustar", "gnutar", "cpio", "cpio.gz", "7z"])
        #expect(result.stdoutLines.allSatisfy { $0.contains("  kept") })
        #expect(result.stdoutLines[0] == "bundle    kept")
        #expect(result.stdoutLines[1] == "zip       kept  (not kept by the form: times to 1 s, owners, extended attributes (1 entry), the root directory's own mode and time)")
        #expect(result.stdoutLines[2] == "tar       kept  (not kept by the form: extended attributes (1 entry))")
    }

    /// Issue 23, item 7: by default the forms documents travel in, which are quick.
    @Test func theDefaultFormsAreTheOnesDocumentsTravelIn() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["verify", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdoutLines.map { $0.prefix { $0 != " " } } == ["bundle", "zip", "tar", "tar.zst"])
        #expect(result.stdoutLines[0] == "bundle   kept")
    }

    @Test func aFormThatCannotHoldTheTreeIsALoss() throws {
        let journal = try SampleJournal()
        // ustar holds at most 100 bytes of a name (155 more of directories).
        try journal.createFile("Entries/" + String(repeating: "n", count: 120) + ".md")
        let result = try WrapInspectProcess.run(["verify", "--via", "tar,ustar", "Travel.journal"], in: journal.directory)
        #expect(result.status == 1)
        #expect(result.stdoutLines.first?.hasPrefix("tar    kept") == true)
        #expect(result.stdoutLines.dropFirst().first?.hasPrefix("ustar  LOST") == true, "\(result.stdout)")
        #expect(result.stdoutLines.count == 3, "the loss is explained under its form")
    }

    @Test func anArchiveIsVerifiedToo() throws {
        let journal = try SampleJournal()
        let pack = try WrapInspectProcess.run(["pack", "Travel.journal", "Travel.tar.zst"], in: journal.directory)
        try #require(pack.status == 0)
        let result = try WrapInspectProcess.run(["verify", "--via", "bundle,zip", "--json", "Travel.tar.zst"], in: journal.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.map { $0["form"] as? String } == ["bundle", "zip"])
        #expect(results.allSatisfy { $0["kept"] as? Bool == true })
    }

    /// Issue 23, item 11: what a form does not keep, by stable codes
    /// (docs/cli-json.md), with the form's time resolution, in version 2.
    @Test func jsonNamesWhatIsNotKeptByCode() throws {
        let journal = try SampleJournal()
        try Disk.setXattr("user.note", "kept in a bundle only", on: journal.url("index.json"))
        let result = try WrapInspectProcess.run(["verify", "--via", "bundle,zip,7z,tar", "--json", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 2)
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.map { $0["notKept"] as? [String] ?? ["?"] } == [
            // A tar records the root's own entry; a zip and a 7z do not.
            [], ["times", "owners", "xattrs", "root-metadata"], ["times", "owners", "xattrs", "root-metadata"], ["xattrs"],
        ])
        #expect(results.map { $0["timeResolution"] as? Int } == [1, 1_000_000_000, 100, 1])
    }

    @Test(arguments: [
        (["verify", "Travel.journal/index.json"], "wrapinspect: Travel.journal/index.json: a single file has no tree to round-trip; verify takes a bundle or an archive"),
        (["verify", "--via", "zip,rar", "Travel.journal"], "wrapinspect: --via: \"rar\" is not a format"),
        (["verify", "Missing.journal"], "wrapinspect: Missing.journal: cannot read: fstatat(\"Missing.journal\") failed: No such file or directory (ENOENT)"),
    ])
    func troubleExitsTwo(arguments: [String], message: String) throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(arguments, in: journal.directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }
}
