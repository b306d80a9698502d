@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Issue 25, item 3: ``ZipArchiveEditor`` adds, replaces and removes
/// members of a zip made by another tool in one atomic rewrite, copying
/// the members it leaves alone as they are stored.
@Suite(.startsProcesses) struct ZipArchiveEditorTests {
    /// A zip made by Python's zipfile: deflated and stored members, a directory entry.
    static func pythonZip(in directory: TemporaryDirectory) throws -> URL {
        let zip = directory.appending("edit.zip")
        try Interop.run("python3", ["-c", """
            import random, sys, zipfile
            random.seed(3)
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("readme.txt", b"read me first\\n" * 300)
                z.writestr(zipfile.ZipInfo("data/"), b"")
                z.writestr("data/table.csv", b"".join(b"%d,%d\\n" % (i, i * i) for i in range(5000)))
                z.writestr("data/blob.bin", bytes(random.getrandbits(8) for _ in range(200000)), compress_type=zipfile.ZIP_STORED)
                z.writestr("old.txt", b"to be removed")
            """, zip.path], in: directory.url)
        return zip
    }

    @Test func addReplaceAndRemoveInOneRewrite() throws {
        let directory = try TemporaryDirectory()
        let zip = try Self.pythonZip(in: directory)
        let before = try StoredZipMembers.list(zip)
        var expected = try ZipContainerSaveTests.files(of: ZipContainer.fileWrapper(contentsOf: zip))

        let editor = try ZipArchiveEditor(contentsOf: zip)
        try editor.setContents(Data("replaced\n".utf8), at: "readme.txt", permissions: 0o600)
        try editor.setContents(Data("new and nested\n".utf8), at: "notes/2026/today.txt")
        try editor.removeMember(at: "old.txt")
        // Nothing is written before the commit.
        #expect(try StoredZipMembers.list(zip) == before)
        try editor.commit()

        expected["readme.txt"] = Array("replaced\n".utf8)
        expected["notes/2026/today.txt"] = Array("new and nested\n".utf8)
        expected["old.txt"] = nil
        let after = try StoredZipMembers.list(zip)
        #expect(after.map(\.name) == ["readme.txt", "data/", "data/table.csv", "data/blob.bin", "notes/", "notes/2026/", "notes/2026/today.txt"])
        for name in ["data/table.csv", "data/blob.bin"] {
            #expect(after.first { $0.name == name } == before.first { $0.name == name }, "\(name) was not copied as stored")
        }
        try ZipContainerSaveTests.checkWithOtherTools(zip, expected: expected, in: directory)
        let reread = try ZipContainer.fileWrapper(contentsOf: zip)
        #expect(try ZipContainerReadTests.wrapper(at: "readme.txt", in: reread).attributes.permissions == 0o600)
        // The editor reads from the zip it wrote, and commits again.
        #expect(try editor.member(at: "data/table.csv")?.readRegularFileContents() == Data(expected["data/table.csv"]!))
        try editor.removeMember(at: "notes")
        try editor.commit()
        #expect(try StoredZipMembers.list(zip).map(\.name) == ["readme.txt", "data/", "data/table.csv", "data/blob.bin"])
    }

    @Test func aCommitWithoutEditsCopiesEveryFileAsStored() throws {
        let directory = try TemporaryDirectory()
        let zip = try Self.pythonZip(in: directory)
        let before = try StoredZipMembers.list(zip)
        try ZipArchiveEditor(contentsOf: zip).commit()
        let after = try StoredZipMembers.list(zip)
        #expect(after.map(\.name) == before.map(\.name))
        #expect(after.filter { !$0.name.hasSuffix("/") } == before.filter { !$0.name.hasSuffix("/") })
    }

    @Test func unsafePathsAndMissingMembersAreRefusedLeavingTheZipAlone() throws {
        let directory = try TemporaryDirectory()
        let zip = try Self.pythonZip(in: directory)
        let original = try Data(contentsOf: zip)
        let editor = try ZipArchiveEditor(contentsOf: zip)
        for path in ["../escape.txt", "/absolute.txt", "", "."] {
            let error = try #require(throws: ArchiveError.self, "\(path)") { try editor.setContents(Data(), at: path) }
            #expect(error.code == .unsafePath && error.entry == path)
        }
        let missing = try #require(throws: FileWrapperError.self) { try editor.removeMember(at: "no/such.txt") }
        #expect(missing.code == .noSuchFile && missing.description.contains("no/such.txt"))
        let throughFile = try #require(throws: FileWrapperError.self) { try editor.setContents(Data(), at: "readme.txt/inside") }
        #expect(throughFile.code == .notADirectory)
        #expect(try Data(contentsOf: zip) == original)
    }
}

/// An edit killed (SIGKILL) at random instants, in a child process
/// (`fwk-test-child edit-zip`), at least 20 times mid-edit (4 in a reduced
/// run, ``KillHarness/kills(full:)``): the zip holds the old version of the edited member or the new
/// one, and every other member whole; nothing beside it changes.
@Suite(.startsProcesses) struct KilledZipEditTests {
    static let kills = KillHarness.kills(full: 20)

    /// The regular files of the zip at `url`, read in memory by ``ArchiveReader``.
    static func members(of url: URL) throws -> [String: [UInt8]] {
        try ZipContainerSaveTests.files(of: ArchiveReader.fileWrapper(contentsOf: url, formats: .zip))
    }

    @Test func aZipKilledMidEditHoldsTheOldMemberOrTheNewOne() async throws {
        let tally = try await onThreadOfItsOwn(Self.killEdits)
        #expect(tally.killed >= Self.kills, "\(tally)")
    }

    static func killEdits() throws -> KillHarness.Tally {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 2026)
        var files = ZipContainerReadTests.documentFiles(seed: 11)
        files += (1...TestSizes.pick(full: 8, reduced: 3)).map { ("media/large\($0).bin", random.bytes(1 << 20)) }
        let zip = try ZipContainerReadTests.infoZipDocument(files, in: directory)
        var states: [String: [UInt8]] = [:]
        for version in ["A", "B"] {
            states[version] = Array(String(repeating: "version \(version) of the state\n", count: 10_000).utf8)
            try Data(states[version]!).write(to: directory.appending("\(version).state"))
        }
        let others = Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.contents) })
        return try KillHarness.alternateVersions(of: zip, kills: kills, maximumRuns: 200) {
            ["edit-zip", zip.path, "state.txt", directory.appending("\($0).state").path]
        } contents: { url in
            // Which state the zip holds, with every other member whole.
            var members = try Self.members(of: url)
            let state = members.removeValue(forKey: "state.txt")
            guard members == others, let version = states.first(where: { $0.value == state })?.key else {
                throw KillHarness.Failure("the zip holds neither version")
            }
            return version
        }
    }
}
