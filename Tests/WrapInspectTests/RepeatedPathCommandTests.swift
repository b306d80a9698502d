import Foundation
import Testing
import TestSupport

/// `dump`, `digest`, `snapshot` and `diff` on a tar that stores paths
/// twice, as `tar -rf` appends them (issue 22, item 9): read as GNU tar
/// extracts it, each repeated path named on standard error (five, then a
/// count), and `cat` gives the last entry's bytes; `unpack` refuses it.
/// And `dump` names `--stored` when it refuses what an archive holds.
@Suite("wrapinspect on repeated paths")
struct RepeatedPathCommandTests {
    /// `appended.tar` in `directory`: `names` by GNU tar, then each
    /// changed and appended again with `tar -rf`; and `extracted`, GNU
    /// tar's extraction of it.
    static func appendedArchive(_ names: [String], in directory: TemporaryDirectory) throws {
        let script = """
            mkdir source extracted && cd source &&
            for name in \(names.joined(separator: " ")); do echo first > "$name"; done &&
            tar -cf ../appended.tar * &&
            for name in \(names.joined(separator: " ")); do echo "second, longer" > "$name"; done &&
            echo kept > kept && tar -rf ../appended.tar * && cd .. && tar -xf appended.tar -C extracted
            """
        let made = try ChildProcess.run("/bin/sh", ["-c", script], in: directory.url)
        try #require(made.status == 0, "\(made.stderr)")
    }

    static func warning(_ name: String) -> String {
        "wrapinspect: appended.tar: \"\(name)\": stored more than once; read as its last entry, as extraction leaves it (unpack refuses it)"
    }

    @Test func readOnlyCommandsReadTheLastEntryAndSaySo() throws {
        let directory = try TemporaryDirectory()
        try Self.appendedArchive(["x"], in: directory)

        let dump = try WrapInspectProcess.run(["dump", "appended.tar"], in: directory.url)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stderr == Self.warning("x") + "\n")
        #expect(dump.stdoutLines.contains { $0.hasSuffix("15 B  └── x") }, "the later x: \(dump.stdout)")

        let digest = try WrapInspectProcess.run(["digest", "appended.tar"], in: directory.url)
        let reference = try WrapInspectProcess.run(["digest", "extracted"], in: directory.url)
        #expect(digest.status == 0 && digest.stdout == reference.stdout, "as GNU tar extracts it")
        #expect(digest.stderr == Self.warning("x") + "\n")

        let snapshot = try WrapInspectProcess.run(["snapshot", "-o", "appended.json", "appended.tar"], in: directory.url)
        #expect(snapshot.status == 0 && snapshot.stderr == Self.warning("x") + "\n", "\(snapshot.stderr)")

        let diff = try WrapInspectProcess.run(["diff", "appended.tar", "extracted"], in: directory.url)
        #expect(diff.status == 0, "\(diff.stdout)\(diff.stderr)")
        #expect(diff.stderr == Self.warning("x") + "\n")

        let cat = try WrapInspectProcess.run(["cat", "appended.tar", "x"], in: directory.url)
        #expect(cat.status == 0 && cat.stdout == "second, longer\n", "the same entry as dump: \(cat.stdout)\(cat.stderr)")

        let unpack = try WrapInspectProcess.run(["unpack", "appended.tar", "out"], in: directory.url)
        #expect(unpack.status == 2)
        #expect(unpack.stderr == "wrapinspect: appended.tar: \"x\": the archive has this path twice\n")
    }

    @Test func pastFivePathsTheRestAreCounted() throws {
        let directory = try TemporaryDirectory()
        let names = (1...7).map { "file\($0)" }
        try Self.appendedArchive(names, in: directory)

        let digest = try WrapInspectProcess.run(["digest", "appended.tar"], in: directory.url)

        #expect(digest.status == 0)
        let expected = names.prefix(5).map(Self.warning) + ["wrapinspect: appended.tar: 2 more paths stored more than once, each read as its last entry"]
        #expect(digest.stderr == expected.joined(separator: "\n") + "\n")
    }

    @Test(arguments: ["dotdot.tar", "hardlink-to-symlink.tar", "file-directory-conflict-file-then-child.tar", "symlink-write-through.zip"])
    func dumpNamesStoredWhenItRefusesAnArchive(fixture: String) throws {
        let directory = try TemporaryDirectory()
        let archive = PackUnpackTests.hostile.appendingPathComponent(fixture).path

        let refused = try WrapInspectProcess.run(["dump", archive], in: directory.url)
        let stored = try WrapInspectProcess.run(["dump", "--stored", archive], in: directory.url)

        #expect(refused.status == 2)
        #expect(refused.stderr.hasSuffix(" (dump --stored lists the archive's entries as they are stored, unchecked)\n"), "\(refused.stderr)")
        #expect(stored.status == 0, "\(stored.stderr)")
    }

    @Test func aLimitNamesItsFlagAndNotStored() throws {
        let directory = try TemporaryDirectory()
        try Self.appendedArchive(["x"], in: directory)

        let refused = try WrapInspectProcess.run(["dump", "--max-entries", "1", "appended.tar"], in: directory.url)

        #expect(refused.status == 2)
        #expect(refused.stderr.hasSuffix("(raise it with --max-entries)\n"), "\(refused.stderr)")
    }
}
