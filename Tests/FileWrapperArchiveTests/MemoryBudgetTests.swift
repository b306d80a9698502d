import FileWrapperArchive
import Foundation
import Testing
import TestSupport

/// Reading an archive holds what it declares to
/// ``ArchiveReadLimits/maxMemory`` (256 MiB by default), before anything
/// is allocated (``DeclaredSizes``): an archive that declares more is
/// refused, by every reader, with an error that names the limit, in a
/// process that stays under the budget and, held to 4 GiB of address
/// space, is not ended by a failed allocation; an unpack leaves nothing
/// behind. Each archive declares more than the budget and holds data enough
/// (300 MiB, or a 1 GiB name; less in a reduced run) to make libarchive
/// 3.6.2 fill it: read before the budget, they took 313 MB to 2.6 GB, and
/// the cpio name ended the process ("failed to allocate 1073741872 bytes"),
/// leaving its temporary.
@Suite(.startsProcesses) struct MemoryBudgetTests {
    static let budget = 256 << 20
    /// The address space a reading process is held to.
    static let addressSpace = 4 << 30
    /// MiB of zeros behind a declared dictionary: more than the budget, to
    /// fill it were the dictionary allocated; a reduced run (under a
    /// sanitizer, which does not measure memory) refuses the same with 1.
    static let mebibytes = String(TestSizes.pick(full: 300, reduced: 1))
    /// The declared length of a cpio name (more than an eighth of the
    /// budget), all of it there.
    static let nameLength = TestSizes.pick(full: 1 << 30, reduced: 64 << 20)

    /// An archive that declares more memory than the budget, and what its
    /// refusal says.
    struct Hostile: Sendable, CustomTestStringConvertible {
        var kind: String
        var arguments: [String]
        var name: String
        var words: String

        var testDescription: String { name }
    }

    static let hostile = [
        Hostile(kind: "xz-tar", arguments: [mebibytes, "39"], name: "dictionary-3GiB.tar.xz", words: "decoding the xz stream needs 3221291064 bytes"),
        Hostile(kind: "zip-lzma", arguments: [mebibytes, "\(3 << 30)"], name: "lzma-dictionary-3GiB.zip", words: "is compressed with LZMA"),
        Hostile(kind: "zip-xz", arguments: [mebibytes, "39"], name: "xz-second-block-3GiB.zip", words: "is compressed with xz, whose block at byte"),
        Hostile(kind: "7z-lzma2", arguments: [mebibytes, "39"], name: "lzma2-dictionary-3GiB.7z", words: "coded with LZMA2, which needs 3221291064 bytes"),
        Hostile(kind: "7z-files", arguments: ["30000000"], name: "30-million-files.7z", words: "so many files, folders and streams"),
        Hostile(kind: "cpio-name", arguments: ["\(64 << 20)", "gzip", "-1"], name: "name-64MiB.cpio.gz", words: "declares a name of 67108864 bytes"),
        Hostile(kind: "cpio-name", arguments: ["\(nameLength)", "zstd", "-q", "-1"], name: "long-name.cpio.zst", words: "declares a name of \(nameLength) bytes"),
    ]

    /// Each reader of the library, as `fwk-test-child` runs it.
    static let readers = [["unpack"], ["read-archive", "entries"], ["read-archive", "manifest"], ["read-archive", "tree"]]

    @Test(arguments: hostile)
    func isRefusedByEveryReaderWithinTheBudget(_ hostile: Hostile) throws {
        let directory = try TemporaryDirectory()
        let archive = try HostileArchives.make(hostile.kind, hostile.arguments, named: hostile.name, in: directory.url)
        for reader in Self.readers {
            let arguments = reader == ["unpack"] ? ["unpack", archive.path, directory.appending("out").path] : reader + [archive.path]
            let outcome = try Self.read(arguments)
            let what = "\(reader.joined(separator: " ")) of \(hostile.name)"
            #expect(!outcome.signaled && outcome.status == 2, "\(what) ended with \(outcome.status): \(outcome.error)")
            #expect(outcome.error.contains("(maxMemory)") && outcome.error.contains(hostile.words), "\(what): \(outcome.error)")
            if CorpusTests.sanitizer == nil, let peak = Self.peakMemory(outcome) {
                #expect(peak < Self.budget, "\(what) took \(peak) bytes")
            }
            // Nothing beside the archive: no destination, no temporary.
            let names = try Disk.names(in: directory.url)
            #expect(names == [hostile.name], "\(what) left \(names)")
        }
    }

    /// A stream that cannot seek (a pipe) is decoded within the budget too.
    @Test func aPipeIsHeldToTheBudget() throws {
        let directory = try TemporaryDirectory()
        let archive = try HostileArchives.make("xz-tar", [Self.mebibytes, "39"], named: "dictionary-3GiB.tar.xz", in: directory.url)
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        let outcome = try Self.read(["/bin/sh", "-c", "cat \"$1\" | \"$0\" unpack /dev/stdin \"$2\" --peak-memory",
                                     child, archive.path, directory.appending("out").path], direct: true)
        #expect(!outcome.signaled && outcome.status == 2, "\(outcome.error)")
        #expect(outcome.error.contains("decoding the xz stream needs 3221291064 bytes") && outcome.error.contains("(maxMemory)"), "\(outcome.error)")
        if CorpusTests.sanitizer == nil, let peak = Self.peakMemory(outcome) {
            #expect(peak < Self.budget, "took \(peak) bytes")
        }
        #expect(try Disk.names(in: directory.url) == ["dictionary-3GiB.tar.xz"])
    }

    /// Declared sizes over a lower limit, which libarchive or the format
    /// itself would otherwise bound at 128 MiB (zstd's default window, the
    /// `.lzma` and lzip headers libarchive recognises) or 256 MiB (a zip's
    /// PPMd model), and sizes that only the budget bounds: a 7z's PPMd
    /// model and BCJ2 streams. `wrapinspect` names the flag that raises it.
    @Test(arguments: [
        ("lzma", ["\(1 << 27)"], "dictionary-128MiB.tar.lzma", "64MiB", "decoding the lzma stream needs 134283136 bytes"),
        ("lzip", ["27"], "dictionary-128MiB.tar.lz", "64MiB", "decoding the lzip stream needs 134283136 bytes"),
        ("zip-zstd", ["27"], "window-128MiB.zip", "64MiB", "compressed with zstd, which needs 134217728 bytes"),
        ("zip-ppmd", ["256"], "model-256MiB.zip", "64MiB", "compressed with PPMd, which needs 268435456 bytes"),
        ("7z-ppmd", ["\(3 << 30)"], "model-3GiB.7z", "", "coded with PPMd, which needs 3221225472 bytes"),
        ("7z-bcj2", ["\(1 << 30)"], "bcj2-streams-1GiB.7z", "", "coded with BCJ2, which needs 2147483648 bytes"),
    ])
    func isRefusedOverTheLimit(kind: String, arguments: [String], name: String, limit: String, words: String) throws {
        let directory = try TemporaryDirectory()
        try HostileArchives.make(kind, arguments, named: name, in: directory.url)
        let limitFlags = limit.isEmpty ? [] : ["--max-memory", "\(64 << 20)"]
        let result = try BuiltProgram.run("wrapinspect", ["dump"] + limitFlags + [name], in: directory.url)
        #expect(result.status == 2 && result.stderr.contains(words) && result.stderr.contains("(raise it with --max-memory)"), "\(result.stderr)")
    }

    /// The flag raises the limit: an xz stream whose 256 MiB dictionary
    /// needs a little more memory than 256 MiB is read with a higher one.
    @Test func theFlagRaisesTheLimit() throws {
        let directory = try TemporaryDirectory()
        try HostileArchives.make("xz-tar", ["1", "32"], named: "dictionary-256MiB.tar.xz", in: directory.url)
        let refused = try BuiltProgram.run("wrapinspect", ["dump", "dictionary-256MiB.tar.xz"], in: directory.url)
        #expect(refused.status == 2 && refused.stderr.contains("needs 268501048 bytes"), "\(refused.stderr)")
        let read = try BuiltProgram.run("wrapinspect", ["dump", "--max-memory", "300000000", "dictionary-256MiB.tar.xz"], in: directory.url)
        #expect(read.status == 0 && read.stdout.contains("1 file, 0 symlinks, 1048576 bytes"), "\(read.stdout)\(read.stderr)")
    }

    /// Archives that declare what real ones do still read: xz's largest
    /// preset (`-9`, a 64 MiB dictionary from a pipe), 7z's (`-mx9`), a zstd
    /// window of 128 MiB (`--long=27`), a newc cpio that GNU cpio wrote,
    /// xz'd, and a 64 MiB dictionary declared by an xz block, a 7z coder
    /// and a zip LZMA member.
    @Test func realDictionariesAndNamesStillRead() throws {
        let directory = try TemporaryDirectory()
        let tree = directory.appending("tree")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try Data(StoredCopyTests.large(300_000, seed: 20)).write(to: tree.appendingPathComponent("folder/file"))
        let shell = { (command: String) in _ = try Interop.run("/bin/sh", ["-c", command], in: directory.url) }
        try shell("tar -cf - -C tree folder | xz -9 -c > real.tar.xz")
        try shell("tar -cf - -C tree folder | zstd -q --long=27 -c > real.tar.zst")
        try shell("cd tree && find folder | cpio --quiet -o -H newc | xz -c > ../real.cpio.xz")
        try shell("cd tree && 7z a -bd -mx9 ../real.7z folder > /dev/null")
        try HostileArchives.make("xz-tar", ["1", "28"], named: "dictionary-64MiB.tar.xz", in: directory.url)
        try HostileArchives.make("7z-lzma2", ["1", "28", "tree/folder/file"], named: "dictionary-64MiB.7z", in: directory.url)
        try HostileArchives.make("zip-lzma", ["1", "\(64 << 20)"], named: "dictionary-64MiB.zip", in: directory.url)
        for (name, bytes) in [("real.tar.xz", 300_000), ("real.tar.zst", 300_000), ("real.cpio.xz", 300_000), ("real.7z", 300_000),
                              ("dictionary-64MiB.tar.xz", 1 << 20), ("dictionary-64MiB.7z", 300_000), ("dictionary-64MiB.zip", 1 << 20)] {
            var read = 0
            try ArchiveEntries.forEach(in: directory.appending(name)) { _, entry in
                try entry.forEachBlock { read += $0.count }
            }
            #expect(read == bytes, "\(name)")
        }
    }

    /// Runs `fwk-test-child ARGUMENTS --peak-memory` (or, `direct`,
    /// `ARGUMENTS` as they are) held to ``addressSpace``.
    static func read(_ arguments: [String], direct: Bool = false) throws -> CorpusTests.Outcome {
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        return try CorpusTests.run(direct ? arguments : [child] + arguments + ["--peak-memory"], memoryLimit: addressSpace)
    }

    /// The most memory the child had, from its last `peak-memory N` line (KiB).
    static func peakMemory(_ outcome: CorpusTests.Outcome) -> Int? {
        let line = CorpusTests.lines(outcome.output).last { $0.hasPrefix("peak-memory ") }
        return line.flatMap { Int($0.dropFirst("peak-memory ".count)) }.map { $0 << 10 }
    }
}
