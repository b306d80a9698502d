import Foundation
import Testing
import TestSupport

/// `wrapinspect digest` as a user runs it: one digest for a bundle and all
/// its archives, whoever wrote them, and a new one for any change of
/// contents, names, link targets or the execute bit.
@Suite("wrapinspect digest")
struct DigestTests {
    /// Runs a shell command line in `directory`; fails the test if it fails.
    static func shell(_ command: String, in directory: URL) throws {
        let result = try Disk.run("/bin/sh", ["-c", "cd '\(directory.path)' && \(command)"])
        try #require(result.status == 0, "\(command): \(result.stderr)")
    }

    /// The tree digest `wrapinspect digest` prints for `path`.
    static func digest(_ path: String, in directory: URL, metadata: Bool = false) throws -> [Substring] {
        let result = try WrapInspectProcess.run(["digest", path] + (metadata ? ["--metadata"] : []), in: directory)
        try #require(result.status == 0, "\(path): \(result.stderr)")
        #expect(result.stderr == "")
        return result.stdoutLines
    }

    @Test func oneDigestForTheBundleAndEveryArchiveOfIt() throws {
        let journal = try SampleJournal()
        let directory = journal.directory
        for ending in ["zip", "tar", "tar.gz", "tar.zst", "7z"] {
            let pack = try WrapInspectProcess.run(["pack", "Travel.journal", "ours.\(ending)"], in: directory)
            try #require(pack.status == 0, "\(pack.stderr)")
        }
        // Written by other tools, with their own layouts: "./" prefixes,
        // directory entries or not, GNU and pax headers, DOS times.
        try Self.shell("bsdtar -cf bsdtar.tar -C Travel.journal .", in: directory)
        try Self.shell("bsdtar --format 7zip -cf bsdtar.7z -C Travel.journal .", in: directory)
        try Self.shell("tar -czf gnu.tar.gz -C Travel.journal .", in: directory)
        try Self.shell("tar --zstd -cf gnu.tar.zst -C Travel.journal Cover Drafts Entries Latest.md Media QuickLook Scripts index.json", in: directory)
        try Self.shell("cd Travel.journal && zip -qry ../infozip.zip .", in: directory)
        let snapshot = try WrapInspectProcess.run(["snapshot", "Travel.journal", "-o", "journal.json"], in: directory)
        try #require(snapshot.status == 0, "\(snapshot.stderr)")

        let expected = try Self.digest("Travel.journal", in: directory)
        #expect(expected.count == 1)
        #expect(expected.first?.hasPrefix("fwk-tree-v1:") == true)
        #expect(expected.first?.count == "fwk-tree-v1:".count + 64)
        for form in ["ours.zip", "ours.tar", "ours.tar.gz", "ours.tar.zst", "ours.7z", "bsdtar.tar", "bsdtar.7z",
                     "gnu.tar.gz", "gnu.tar.zst", "infozip.zip", "journal.json"] {
            #expect(try Self.digest(form, in: directory) == expected, "\(form)")
        }
    }

    /// Each edit, made on a fresh copy, and whether it must change the tree digest.
    static let edits: [(name: String, command: String, changesDigest: Bool)] = [
        ("one byte", "printf X | dd of=index.json bs=1 seek=10 conv=notrunc status=none", true),
        ("one name", "mv Entries/'2026-05-03 Porto.md' Entries/'2026-05-03 Porto.MD'", true),
        ("one symlink target", "ln -sfn Entries Cover", true),
        ("one execute bit", "chmod u+x index.json", true),
        ("an empty directory added", "mkdir Drafts/new", true),
        ("a modification time", "touch -d '2001-02-03 04:05:06' index.json", false),
        ("group write", "chmod g+w index.json", false),
        ("other execute (not the owner's)", "chmod o+x index.json", false),
    ]

    @Test(arguments: edits.indices)
    func aChangeChangesTheDigestOnlyWhenTheTreeChanges(edit: Int) throws {
        let (name, command, changesDigest) = Self.edits[edit]
        let journal = try SampleJournal()
        let before = try Self.digest("Travel.journal", in: journal.directory, metadata: true)
        try Self.shell("cd Travel.journal && \(command)", in: journal.directory)
        let after = try Self.digest("Travel.journal", in: journal.directory, metadata: true)
        #expect((before[0] != after[0]) == changesDigest, "\(name)")
        // Every edit changes something the metadata digest covers, or the tree.
        #expect(before[1] != after[1] || before[0] != after[0], "\(name)")
        if !changesDigest {
            #expect(before[1] != after[1], "\(name) changes the metadata digest")
        }
    }

    @Test func anUnhashedManifestHasNoDigest() throws {
        let journal = try SampleJournal()
        let dump = try WrapInspectProcess.run(["dump", "--json", "Travel.journal"], in: journal.directory)
        try dump.stdout.write(to: journal.directory.appendingPathComponent("listing.json"), atomically: true, encoding: .utf8)
        let result = try WrapInspectProcess.run(["digest", "listing.json"], in: journal.directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "wrapinspect: listing.json: the manifest has no file digests (it was written without hashing), so it has no tree digest\n")
    }
}
