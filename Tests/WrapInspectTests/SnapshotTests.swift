import Foundation
import Testing
import TestSupport

/// `wrapinspect snapshot` and `dump` on every kind of input: the manifest
/// of a bundle, its archives and a manifest file are the same tree, and
/// each manifest format stands in for the tree it describes.
@Suite("wrapinspect snapshot, and dump of archives and manifests")
struct SnapshotTests {
    /// The sample's tree as `dump` prints it, without the root line.
    static let sampleBody = Array(DumpTests.sampleTree.split(separator: "\n").dropFirst())

    @Test(arguments: ["zip", "tar", "tar.zst", "7z", "cpio"])
    func dumpShowsAnArchiveAsTheTreeItHolds(ending: String) throws {
        let journal = try SampleJournal()
        let pack = try WrapInspectProcess.run(["pack", "Travel.journal", "Travel.\(ending)"], in: journal.directory)
        try #require(pack.status == 0, "\(pack.stderr)")
        let result = try WrapInspectProcess.run(["dump", "Travel.\(ending)"], in: journal.directory)
        #expect(result.status == 0, "\(result.stderr)")
        // A zip or 7z records nothing about its root directory; a tar or cpio that pack writes does.
        let root = ["zip", "7z"].contains(ending) ? "d?????????" : "drwxr-xr-x"
        #expect(result.stdoutLines.first == "\(root)             Travel.\(ending)/")
        #expect(Array(result.stdoutLines.dropFirst()) == Self.sampleBody)
    }

    @Test(arguments: ["json", "jsonl", "mtree"])
    func aManifestFileStandsInForTheTree(format: String) throws {
        let journal = try SampleJournal()
        let snapshot = try WrapInspectProcess.run(["snapshot", "Travel.journal", "-o", "journal.\(format)"], in: journal.directory)
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        #expect(snapshot.stdout == "")
        let dump = try WrapInspectProcess.run(["dump", "journal.\(format)"], in: journal.directory)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(Array(dump.stdoutLines.dropFirst()) == Self.sampleBody)
        let digests = try ["Travel.journal", "journal.\(format)"].map { try DigestTests.digest($0, in: journal.directory, metadata: true) }
        #expect(digests[0] == digests[1], "tree and metadata digests survive the \(format) manifest")
    }

    @Test func theFormatComesFromTheOptionOrTheEnding() throws {
        let journal = try SampleJournal()
        let toStandardOutput = try WrapInspectProcess.run(["snapshot", "Travel.journal", "--format", "mtree"], in: journal.directory)
        #expect(toStandardOutput.stdout.hasPrefix("#mtree"))
        let byEnding = try WrapInspectProcess.run(["snapshot", "Travel.journal", "-o", "out.jsonl"], in: journal.directory)
        #expect(byEnding.status == 0)
        let written = try String(contentsOf: journal.directory.appendingPathComponent("out.jsonl"), encoding: .utf8)
        #expect(written.hasPrefix(#"{"format":"fwk-manifest-lines""#))
        let json = try WrapInspectProcess.run(["snapshot", "Travel.journal"], in: journal.directory)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["format"] as? String == "fwk-manifest")
        #expect((object?["entries"] as? [Any])?.count == 15)
    }

    @Test func anOutputThatCannotBeWrittenIsTroubleNamingIt() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["snapshot", "Travel.journal", "-o", "missing/journal.json"], in: journal.directory)
        #expect(result.status == 2)
        #expect(result.stderr == "wrapinspect: missing/journal.json: cannot write: openat(\"missing\") failed: No such file or directory (ENOENT)\n")
    }

    /// The issue's third promise: libarchive's mtree reader takes our mtree.
    @Test func bsdtarReadsTheMtreeManifest() throws {
        let journal = try SampleJournal()
        // Spaces, "#", "=", a backslash and a newline, all escaped in mtree.
        // (Not a byte that is not UTF-8: bsdtar warns it cannot put one in a pax header.)
        try journal.createFile(named: Array("odd name #1 = \\ \n.md".utf8), in: "Entries")
        let snapshot = try WrapInspectProcess.run(["snapshot", "Travel.journal", "-o", "journal.mtree"], in: journal.directory)
        try #require(snapshot.status == 0, "\(snapshot.stderr)")
        let manifest = journal.directory.appendingPathComponent("journal.mtree").path
        let archive = journal.directory.appendingPathComponent("from-mtree.tar").path
        // Run inside the bundle: bsdtar takes each file's contents from disk.
        let pack = try Disk.run("/bin/sh", ["-c", "cd '\(journal.url.path)' && bsdtar -cf '\(archive)' @'\(manifest)'"])
        #expect(pack.status == 0, "\(pack.stderr)")
        #expect(pack.stderr == "")
        let digests = try [journal.url.path, archive].map { try DigestTests.digest($0, in: journal.directory) }
        #expect(digests[0] == digests[1], "the archive bsdtar made from the manifest holds the same tree")
    }

    @Test func dumpWithDigestsShowsEachFilesSHA256AndTheTreeDigest() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "--digests", "Travel.journal"], in: journal.directory)
        #expect(result.status == 0)
        // sha256sum of the sample's index.json, computed independently.
        let expected = try Disk.run("/bin/sh", ["-c", "sha256sum '\(journal.url("index.json").path)' > '\(journal.directory.path)/sum'"])
        #expect(expected.status == 0)
        let sum = try String(contentsOf: journal.directory.appendingPathComponent("sum"), encoding: .utf8).prefix(64)
        #expect(result.stdoutLines.contains { $0.contains(sum) && $0.hasSuffix("└── index.json") })
        let digest = try DigestTests.digest("Travel.journal", in: journal.directory)
        #expect(result.stdoutLines.last.map(String.init) == "tree digest \(digest[0])")
    }

    @Test func dumpJSONIsTheManifestWithoutDigestsUnlessAsked() throws {
        let journal = try SampleJournal()
        let plain = try WrapInspectProcess.run(["dump", "--json", "Travel.journal"], in: journal.directory)
        let hashed = try WrapInspectProcess.run(["dump", "--json", "--digests", "Travel.journal"], in: journal.directory)
        #expect(plain.status == 0 && hashed.status == 0)
        #expect(!plain.stdout.contains("\"sha256\""))
        #expect(hashed.stdout.contains("\"sha256\""))
        let object = try JSONSerialization.jsonObject(with: Data(hashed.stdout.utf8)) as? [String: Any]
        #expect(object?["version"] as? Int == 1)
    }

    @Test func aFlatFileIsATreeOfOneFile() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "Travel.journal/index.json"], in: journal.directory)
        #expect(result.stdout == "-rw-r--r--  853 B  Travel.journal/index.json\n0 directories, 1 file, 0 symlinks, 853 bytes\n")
        // Text that libarchive's mtree reader would take for a manifest is still a flat file.
        try Disk.write("Latest.md\n", to: journal.directory.appendingPathComponent("note.txt"))
        let text = try WrapInspectProcess.run(["dump", "note.txt"], in: journal.directory)
        #expect(text.stdout == "-rw-r--r--  10 B  note.txt\n0 directories, 1 file, 0 symlinks, 10 bytes\n", "\(text.stderr)")
    }

    @Test func aDamagedArchiveIsTroubleNamingTheFile() throws {
        let journal = try SampleJournal()
        let pack = try WrapInspectProcess.run(["pack", "Travel.journal", "Travel.zip"], in: journal.directory)
        try #require(pack.status == 0)
        let url = journal.directory.appendingPathComponent("Travel.zip")
        let data = try Data(contentsOf: url)
        try data.prefix(data.count / 2).write(to: url)
        for command in ["dump", "digest", "snapshot"] {
            let result = try WrapInspectProcess.run([command, "Travel.zip"], in: journal.directory)
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr.hasPrefix("wrapinspect: Travel.zip: "), "\(command): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }
}
