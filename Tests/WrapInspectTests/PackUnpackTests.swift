import Foundation
import Testing
import TestSupport

/// `wrapinspect pack` and `unpack` as a user runs them: the sample through
/// every format and back, refusals with exit status 2 naming the archive,
/// the entry and the flag, and destinations kept unless `--force`.
@Suite("wrapinspect pack and unpack")
struct PackUnpackTests {
    static let hostile = SampleJournal.fixtureURL.deletingLastPathComponent().appendingPathComponent("Hostile")

    @Test(arguments: ["zip", "tar", "tgz", "tar.bz2", "tar.xz", "tar.zst", "tar.lz4", "cpio", "7z"])
    func theSampleSurvivesPackAndUnpack(ending: String) throws {
        let journal = try SampleJournal()
        let pack = try WrapInspectProcess.run(["pack", "Travel.journal", "Travel.\(ending)"], in: journal.directory)
        #expect(pack.status == 0, "\(pack.stderr)")
        #expect(pack.stdout == "")

        let unpack = try WrapInspectProcess.run(["unpack", "Travel.\(ending)", "Copy.journal"], in: journal.directory)
        #expect(unpack.status == 0, "\(unpack.stderr)")
        // A tar or cpio holds the root's own entry too.
        let entries = ["zip", "7z"].contains(ending) ? 14 : 15
        #expect(unpack.stdout == "\(entries) entries, \(try journal.totalFileBytes()) bytes unpacked into Copy.journal\n")

        let original = try WrapInspectProcess.run(["dump", "Travel.journal"], in: journal.directory)
        let copy = try WrapInspectProcess.run(["dump", "Copy.journal"], in: journal.directory)
        #expect(copy.stdoutLines.dropFirst() == original.stdoutLines.dropFirst(), "the same tree, modes and sizes")
    }

    @Test(arguments: [
        ("symlink-escape-dotdot.zip", "\"up\": the symlink leads out of the tree"),
        ("dotdot.tar", "\"../FileWrapperKit-hostile-dotdot\": the path has a \"..\" component"),
        ("encrypted.zip", "\"secret.txt\": the entry is encrypted"),
        ("device-node-char.tar", "\"null\": device nodes, FIFOs and sockets are not unpacked"),
    ])
    func aHostileArchiveIsRefusedByEntry(file: String, message: String) throws {
        let journal = try SampleJournal()
        let archive = Self.hostile.appendingPathComponent(file).path
        let result = try WrapInspectProcess.run(["unpack", archive, "Out"], in: journal.directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("wrapinspect: \(archive): \(message)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: journal.directory.appendingPathComponent("Out").path))
    }

    @Test func aLimitNamesTheFlagThatRaisesIt() throws {
        let journal = try SampleJournal()
        _ = try WrapInspectProcess.run(["pack", "Travel.journal", "Travel.tar"], in: journal.directory)

        let refused = try WrapInspectProcess.run(["unpack", "--max-entries", "3", "Travel.tar", "Out"], in: journal.directory)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("more than 3 entries (raise it with --max-entries)"), "\(refused.stderr)")

        let raised = try WrapInspectProcess.run(["unpack", "--max-entries", "15", "Travel.tar", "Out"], in: journal.directory)
        #expect(raised.status == 0, "\(raised.stderr)")
    }

    @Test func anExistingDestinationIsKeptUnlessForced() throws {
        let journal = try SampleJournal()
        _ = try WrapInspectProcess.run(["pack", "Travel.journal", "Travel.zip"], in: journal.directory)
        let kept = journal.directory.appendingPathComponent("Out/kept.txt")
        try FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: kept)

        let refused = try WrapInspectProcess.run(["unpack", "Travel.zip", "Out"], in: journal.directory)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("Out already exists (unpack into a new folder, or replace it whole with --force)"), "\(refused.stderr)")
        #expect(FileManager.default.fileExists(atPath: kept.path))

        let failed = try WrapInspectProcess.run(
            ["unpack", "--force", Self.hostile.appendingPathComponent("truncated.tar.gz").path, "Out"], in: journal.directory)
        #expect(failed.status == 2)
        #expect(FileManager.default.fileExists(atPath: kept.path), "a failed unpack leaves the old destination")

        let forced = try WrapInspectProcess.run(["unpack", "--force", "Travel.zip", "Out"], in: journal.directory)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: kept.path))
        #expect(FileManager.default.fileExists(atPath: journal.directory.appendingPathComponent("Out/index.json").path))
    }

    @Test func formatsLeftOutNeedAllFormats() throws {
        let journal = try SampleJournal()
        let ar = journal.directory.appendingPathComponent("lib.a")
        try Data("!<arch>\nfile.txt/       0           0     0     100644  6         `\nhello\n".utf8).write(to: ar)

        let refused = try WrapInspectProcess.run(["unpack", "lib.a", "Out"], in: journal.directory)
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("wrapinspect: lib.a: the archive is ar, which this reader leaves out"), "\(refused.stderr)")

        let read = try WrapInspectProcess.run(["unpack", "--all-formats", "lib.a", "Out"], in: journal.directory)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(try Data(contentsOf: journal.directory.appendingPathComponent("Out/file.txt")) == Data("hello\n".utf8))
    }

    @Test func reproduciblePackingGivesTheSameBytes() throws {
        let journal = try SampleJournal()
        for name in ["one.tar.gz", "two.tar.gz"] {
            let result = try WrapInspectProcess.run(["pack", "--reproducible", "Travel.journal", name], in: journal.directory)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let one = try Data(contentsOf: journal.directory.appendingPathComponent("one.tar.gz"))
        let two = try Data(contentsOf: journal.directory.appendingPathComponent("two.tar.gz"))
        #expect(one == two)
    }

    @Test func aStoredFirstEntryLeadsTheZip() throws {
        let journal = try SampleJournal()
        try Data("application/epub+zip".utf8).write(to: journal.url("mimetype"))
        let result = try WrapInspectProcess.run(["pack", "--first-stored", "mimetype", "Travel.journal", "Book.epub", "--format", "zip"], in: journal.directory)
        #expect(result.status == 0, "\(result.stderr)")

        let zip = try Data(contentsOf: journal.directory.appendingPathComponent("Book.epub"))
        // Local file header: signature, then the method at offset 8 (0 = stored), the name at 30.
        #expect(zip.prefix(4) == Data([0x50, 0x4B, 0x03, 0x04]))
        #expect(zip[zip.startIndex + 8] == 0 && zip[zip.startIndex + 9] == 0)
        #expect(zip.dropFirst(30).prefix(8) == Data("mimetype".utf8))
    }

    /// libarchive turns each zip entry's MS-DOS time into a Unix time with
    /// `mktime`, and with `TZ` unset glibc's `mktime` checks /etc/localtime
    /// at every call, twice an entry. wrapinspect names the file in `TZ`, so
    /// it is read once. Counted with strace, `TZ` taken out of the environment
    /// (and LeakSanitizer off in AddressSanitizer builds: it refuses to run
    /// under ptrace).
    @Test func unpackingAZipChecksTheTimeZoneFileOnceNotPerEntry() throws {
        let journal = try SampleJournal()
        try FileManager.default.createDirectory(at: journal.url("Many"), withIntermediateDirectories: false)
        for index in 0..<100 { try journal.createFile("Many/\(index).txt", size: 10) }
        let pack = try WrapInspectProcess.run(["pack", "Travel.journal", "Travel.zip"], in: journal.directory)
        try #require(pack.status == 0, "\(pack.stderr)")
        let wrapinspect = try #require(WrapInspectProcess.executableURL).path
        let file = { (name: String) in journal.directory.appendingPathComponent(name).path }
        let trace = file("trace.txt")
        let sanitizerOptions = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let result = try Disk.run("/usr/bin/env", [
            "-u", "TZ", "ASAN_OPTIONS=\(sanitizerOptions)detect_leaks=0", "strace", "-f", "-qq", "-e", "trace=newfstatat,stat,lstat,statx", "-o", trace,
            wrapinspect, "unpack", file("Travel.zip"), file("Out"),
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let checks = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("\"/etc/localtime\"") }
        #expect(checks.count <= 2, "\(checks.count) checks of /etc/localtime to unpack 116 entries")
    }

    /// Files whose modes the umask leaves whole are created with them, a
    /// `fchmod` saved on each; under a umask that would take bits they get
    /// them with `fchmod`. Their modes come out exact either way. The calls
    /// are counted with strace.
    @Test(arguments: ["022", "027"])
    func filesAreCreatedWithTheirModesWhereTheUmaskLeavesThem(umask: String) throws {
        let journal = try SampleJournal()
        let modes: [String: Int] = ["a": 0o644, "b": 0o755, "c": 0o600, "d": 0o444]
        let file = { (name: String) in journal.directory.appendingPathComponent(name).path }
        try FileManager.default.createDirectory(atPath: file("Modes"), withIntermediateDirectories: false)
        for (name, mode) in modes {
            try Data("ten bytes\n".utf8).write(to: URL(fileURLWithPath: file("Modes/\(name)")))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file("Modes/\(name)"))
        }
        let pack = try WrapInspectProcess.run(["pack", "Modes", "Modes.tar"], in: journal.directory)
        try #require(pack.status == 0, "\(pack.stderr)")
        let wrapinspect = try #require(WrapInspectProcess.executableURL).path
        let sanitizerOptions = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let result = try Disk.run("/bin/sh", [
            "-c", "umask \(umask) && exec env ASAN_OPTIONS=\(sanitizerOptions)detect_leaks=0 strace -f -qq -e trace=fchmod -o \"$@\"",
            "sh", file("trace.txt"), wrapinspect, "unpack", file("Modes.tar"), file("Out"),
        ])
        try #require(result.status == 0, "\(result.stderr)")

        let calls = try String(contentsOfFile: file("trace.txt"), encoding: .utf8).split(separator: "\n").filter { $0.contains("fchmod(") }
        // One for the destination's own directory; under 027, one for each file but c.
        #expect(calls.count == (umask == "022" ? 1 : 1 + 3), "\(calls)")
        for (name, mode) in modes {
            let attributes = try FileManager.default.attributesOfItem(atPath: file("Out/\(name)"))
            #expect(attributes[.posixPermissions] as? Int == mode, "\(name)")
        }
    }

    @Test(arguments: [
        (["pack", "Travel.journal", "Travel.rar"], "wrapinspect: Cannot tell the format from \"Travel.rar\""),
        (["pack", "--format", "rar", "Travel.journal", "x"], "wrapinspect: Unknown format \"rar\""),
        (["pack", "--store", "Travel.journal", "Travel.tar"], "wrapinspect: --store and --first-stored apply to zip archives only."),
        (["unpack", "--max-ratio", "0", "a.zip", "Out"], "wrapinspect: --max-ratio must be more than 0."),
    ])
    func badUsageExitsTwo(arguments: [String], message: String) throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(arguments, in: journal.directory)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }
}
