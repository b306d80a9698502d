import Foundation
import Glibc
import Testing
import TestSupport

/// `wrapinspect diff --patch` run as a child process on the sample
/// document and its scripted edit: what changed inside each changed file,
/// from a bundle, a zip or a compressed tar, and an output `patch` applies.
@Suite("wrapinspect diff --patch")
struct DiffPatchTests {
    static let lisbon = "Entries/2026-05-01 Lisbon.md"

    @Test func showsTheLinesAChangedTextFileGainedAndAppliesWithPatch() throws {
        let sample = try DiffTests.EditedSample()
        try sample.make("pack", "Edited.journal", "Edited.tar.gz")
        for new in ["Edited.journal", "Edited.tar.gz"] {
            let result = try sample.wrapinspect("diff", "-p", "Travel.journal", new)
            #expect(result.status == 1, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // A tab ends a name with a space, for patch(1).
            let header = try #require(lines.firstIndex(of: "--- a/\(Self.lisbon)\t"), "\(new): \(result.stdout)")
            #expect(lines[header - 1].hasPrefix("M \(Self.lisbon) "))
            #expect(lines[header + 1] == "+++ b/\(Self.lisbon)\t")
            #expect(lines[header + 2].hasPrefix("@@ -"))
            #expect(lines[(header + 3)...].prefix { !$0.hasPrefix("R ") }.filter { $0.hasPrefix("+") } == ["+", "+And the trams."], "\(new): \(result.stdout)")
        }

        // The whole output is a patch: applied to a copy of the original, the changed file becomes the edited one.
        let result = try sample.wrapinspect("diff", "--patch", "Travel.journal", "Edited.journal")
        let copy = sample.directory.appendingPathComponent("Copy.journal")
        try ChildProcess.run("/bin/cp", ["-a", sample.journal.url.path, copy.path])
        let patchFile = sample.directory.appendingPathComponent("edit.patch")
        try Data(result.stdout.utf8).write(to: patchFile)
        let applied = try ChildProcess.run("/usr/bin/patch", ["-p1", "-d", copy.path, "-i", patchFile.path])
        #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
        #expect(try Data(contentsOf: copy.appendingPathComponent(Self.lisbon)) == Data(contentsOf: sample.edited.appendingPathComponent(Self.lisbon)))
    }

    @Test func contextLinesFollowDashU() throws {
        let sample = try DiffTests.EditedSample()
        let none = try sample.wrapinspect("diff", "-U", "0", "Travel.journal", "Edited.journal")
        let hunk = try #require(none.stdout.split(separator: "\n").first { $0.hasPrefix("@@") })
        // The two appended lines, with no context: nothing of the old side.
        #expect(hunk.wholeMatch(of: /@@ -\d+,0 \+\d+,2 @@/) != nil, "\(hunk)")
        #expect(!none.stdout.split(separator: "\n").contains { $0.hasPrefix(" ") }, "\(none.stdout)")
        let wide = try sample.wrapinspect("diff", "-U", "100", "Travel.journal", "Edited.journal")
        let kept = wide.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter { $0.hasPrefix(" ") }
        #expect(kept.count > 3, "the whole file is context")
    }

    /// Contents with NUL bytes, and contents over the limit, get one line:
    /// the first differing byte and the bytes from there on each side.
    @Test func binaryContentsAndContentsOverTheLimitGetTheFirstDifference() throws {
        let directory = try TemporaryDirectory()
        var bytes = [UInt8](repeating: 0, count: 4096)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index * 7) }
        try Disk.write(Data(bytes), to: directory.appending("A/image.bin"))
        try Disk.write(Data(repeating: UInt8(ascii: "a"), count: 300) + Data("\nend\n".utf8), to: directory.appending("A/long.txt"))
        bytes[1000] ^= 0xFF
        try Disk.write(Data(bytes), to: directory.appending("B/image.bin"))
        try Disk.write(Data(repeating: UInt8(ascii: "a"), count: 300) + Data("\nEND\n".utf8), to: directory.appending("B/long.txt"))

        let result = try WrapInspectProcess.run(["diff", "-p", "--max-diff-bytes", "200", "A", "B"], in: directory.url)
        #expect(result.status == 1)
        // Both files differ past their first 200 bytes.
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "  binary: the first 200 bytes agree; the difference lies past them" }.count == 2, "\(result.stdout)")

        let whole = try WrapInspectProcess.run(["diff", "-p", "A", "B"], in: directory.url)
        let old = bytes[1000] ^ 0xFF
        let expected = "  binary: first difference at byte 1000 (0x3e8): " + String(format: "%02x", old)
        #expect(whole.stdout.split(separator: "\n").contains { $0.hasPrefix(expected) }, "\(whole.stdout)")
        #expect(whole.stdout.contains("-end\n+END\n"), "\(whole.stdout)")
    }

    @Test func aManifestSaysItHoldsNoContents() throws {
        let sample = try DiffTests.EditedSample()
        try sample.make("snapshot", "Travel.journal", "-o", "Travel.json")
        let result = try sample.wrapinspect("diff", "-p", "Travel.json", "Edited.journal")
        #expect(result.status == 1)
        #expect(result.stdout.contains("  contents not shown: Travel.json is a manifest, which holds digests, not contents\n"), "\(result.stdout)")
    }

    @Test func coloursAsGitDoesOnlyWhenAsked() throws {
        let sample = try DiffTests.EditedSample()
        let plain = try sample.wrapinspect("diff", "-p", "Travel.journal", "Edited.journal")
        #expect(!plain.stdout.contains("\u{1B}["))
        let colored = try sample.wrapinspect("diff", "-p", "--color", "always", "Travel.journal", "Edited.journal")
        #expect(colored.stdout.contains("\u{1B}[32m+And the trams.\u{1B}[0m"), "\(colored.stdout)")
        #expect(colored.stdout.contains("\u{1B}[36m@@ -"))
    }

    /// With --structured, JSON and property lists are compared as data; a
    /// text file keeps its unified diff.
    @Test func structuredPartsAreComparedAsData() throws {
        let directory = try TemporaryDirectory()
        try Disk.write(#"{"title": "Porto", "pages": [1, 2]}"#, to: directory.appending("A/index.json"))
        try Disk.write("{\n  \"pages\" : [ 1, 2 ],\n  \"title\" : \"Porto\"\n}\n", to: directory.appending("B/index.json"))
        try Disk.write(#"{"title": "Porto", "pages": [1, 2]}"#, to: directory.appending("A/meta.json"))
        try Disk.write(#"{"title": "Lisbon", "pages": [1, 2, 3]}"#, to: directory.appending("B/meta.json"))
        try Disk.write("one\n", to: directory.appending("A/notes.txt"))
        try Disk.write("two\n", to: directory.appending("B/notes.txt"))
        let script = """
            import plistlib, sys
            value = {"Name": "Porto", "Count": 3}
            open(sys.argv[1], "wb").write(plistlib.dumps(value, fmt=plistlib.FMT_XML))
            open(sys.argv[2], "wb").write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
            """
        let made = try ChildProcess.run("/usr/bin/python3", ["-c", script, directory.appending("A/Info.plist").path, directory.appending("B/Info.plist").path])
        try #require(made.status == 0, "\(made.stderr)")

        let result = try WrapInspectProcess.run(["diff", "--structured", "A", "B"], in: directory.url)
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.firstIndex(of: "  property list: formatting only, the same data").map { lines[$0 - 1].hasPrefix("M Info.plist ") } == true, "\(result.stdout)")
        #expect(lines.firstIndex(of: "  JSON: formatting only, the same data").map { lines[$0 - 1].hasPrefix("M index.json ") } == true, "\(result.stdout)")
        let meta = try #require(lines.firstIndex { $0.hasPrefix("M meta.json ") }, "\(result.stdout)")
        #expect(Array(lines[(meta + 1)...].prefix(2)) == ["  + /pages/2: 3", "  /title: \"Porto\" -> \"Lisbon\""])
        #expect(lines.contains("-one") && lines.contains("+two"), "\(result.stdout)")
    }

    /// `--json` with `--patch` carries each patch, as docs/cli-json.md says.
    @Test func jsonCarriesThePatches() throws {
        let sample = try DiffTests.EditedSample()
        let result = try sample.wrapinspect("diff", "--json", "-p", "Travel.journal", "Edited.journal")
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let changes = try #require(object["changes"] as? [[String: Any]])
        let lisbon = try #require(changes.first { $0["path"] as? String == Self.lisbon })
        let patch = try #require(lisbon["patch"] as? [String: Any])
        #expect(patch["type"] as? String == "text")
        let hunks = try #require(patch["hunks"] as? [[String: Any]])
        let lines = hunks.flatMap { $0["lines"] as? [String] ?? [] }
        #expect(lines.filter { $0.hasPrefix("+") } == ["+", "+And the trams."])
        #expect(changes.filter { $0["patch"] != nil }.count == 1, "only the contents change has a patch")
        let plain = try sample.wrapinspect("diff", "--json", "Travel.journal", "Edited.journal")
        #expect(!plain.stdout.contains("\"patch\""), "no patch without --patch")
    }

    /// A member that is an archive on both sides is compared as a tree, its
    /// patches indented under it, to the depth limit: here a zip in the
    /// bundle holding a tar.gz, both written by Python.
    @Test func nestedArchivesAreComparedAsTrees() throws {
        let directory = try TemporaryDirectory()
        let script = """
            import io, sys, tarfile, zipfile
            def tgz(name, data):
                buffer = io.BytesIO()
                with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
                    info = tarfile.TarInfo(name)
                    info.size, info.mtime = len(data), 1700000000
                    archive.addfile(info, io.BytesIO(data))
                return buffer.getvalue()
            for path, text, extra in ((sys.argv[1], b"one\\n", False), (sys.argv[2], b"two\\n", True)):
                with zipfile.ZipFile(path, "w") as z:
                    z.writestr(zipfile.ZipInfo("a.txt", (2026, 1, 1, 0, 0, 0)), text)
                    if extra:
                        z.writestr(zipfile.ZipInfo("b.txt", (2026, 1, 1, 0, 0, 0)), b"new\\n")
                    z.writestr(zipfile.ZipInfo("deep.tar.gz", (2026, 1, 1, 0, 0, 0)), tgz("x.txt", text))
            """
        try FileManager.default.createDirectory(at: directory.appending("A"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appending("B"), withIntermediateDirectories: true)
        let made = try ChildProcess.run("/usr/bin/python3", ["-c", script, directory.appending("A/inner.zip").path, directory.appending("B/inner.zip").path])
        try #require(made.status == 0, "\(made.stderr)")

        let result = try WrapInspectProcess.run(["diff", "-p", "--ignore", "mtime", "A", "B"], in: directory.url)
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let inner = try #require(lines.firstIndex { $0.hasPrefix("M inner.zip ") }, "\(result.stdout)")
        #expect(Array(lines[(inner + 1)...].prefix(16)) == [
            "  M a.txt (4 B -> 4 B)", "  --- a/a.txt", "  +++ b/a.txt", "  @@ -1 +1 @@", "  -one", "  +two",
            "  + b.txt (4 B)",
            "  M deep.tar.gz (105 B -> 104 B)",
            "    M x.txt (4 B -> 4 B)", "    --- a/x.txt", "    +++ b/x.txt", "    @@ -1 +1 @@", "    -one", "    +two",
            "    1 change: 1 contents changed (ignoring mtime; times compared to 1 s)",
            "  3 changes: 1 added, 2 contents changed (ignoring mtime; times compared to 1 s)",
        ], "\(result.stdout)")

        let json = try WrapInspectProcess.run(["diff", "-p", "--json", "A", "B"], in: directory.url)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let change = try #require((object["changes"] as? [[String: Any]])?.first { $0["path"] as? String == "inner.zip" })
        let patch = try #require(change["patch"] as? [String: Any])
        #expect(patch["type"] as? String == "archive")
        #expect((patch["changes"] as? [[String: Any]])?.map { $0["path"] as? String } == ["a.txt", "b.txt", "deep.tar.gz"])
    }

    @Test func badValuesAreUsageErrors() throws {
        let directory = try TemporaryDirectory()
        for arguments in [["-U", "-1"], ["--max-diff-bytes", "0"]] {
            let result = try WrapInspectProcess.run(["diff"] + arguments + ["A", "B"], in: directory.url)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("Usage:"), "\(arguments): \(result.stderr)")
        }
    }
}
