import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Reading an archive without unpacking it (issue 22, item 9): a path
/// stored twice, as `tar -rf` appends it, reads as its last entry, as GNU
/// tar and bsdtar extract it, and is named in ``Manifest/repeatedPaths``;
/// the unpacker still refuses it. Reading has its own entry limit, well
/// above the unpacker's, and memory in proportion to the manifest.
@Suite(.startsProcesses) struct RepeatedPathTests {
    /// `appended.tar`: `x` and `d/y` by GNU tar, then `x` again, changed,
    /// appended with `tar -rf`, and `d/` appended with its file.
    static func appendedArchive(in directory: TemporaryDirectory) throws -> URL {
        let source = directory.appending("source")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("d"), withIntermediateDirectories: true)
        try Disk.write("first\n", to: source.appendingPathComponent("x"))
        try Disk.write("y\n", to: source.appendingPathComponent("d/y"))
        try Interop.run("tar", ["-C", "source", "-cf", "appended.tar", "x", "d"], in: directory.url)
        try Disk.write("second, longer\n", to: source.appendingPathComponent("x"), mode: 0o755)
        #expect(chmod(source.appendingPathComponent("x").path, 0o755) == 0)
        try Interop.run("tar", ["-C", "source", "-rf", "appended.tar", "x", "d"], in: directory.url)
        return directory.appending("appended.tar")
    }

    @Test(arguments: ["tar", "bsdtar"])
    func anAppendedPathReadsAsExtractionLeavesIt(extractor: String) throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.appendedArchive(in: directory)
        let extracted = directory.appending("extracted")
        try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: false)
        try Interop.run(extractor, ["-xf", archive.path, "-C", extracted.path], in: directory.url)

        let manifest = try Manifest(archiveAt: archive)
        let reference = try Manifest(contentsOf: extracted)

        // `d` is stored twice too, a directory both times: one directory, not a repeated path.
        #expect(manifest.repeatedPaths == [Array("d/y".utf8), Array("x".utf8)])
        #expect(manifest.treeDigest == reference.treeDigest)
        let x = try #require(manifest.entry(at: Array("x".utf8)))
        #expect(x.size == 15 && x.permissions == 0o755, "the later x")
        #expect(manifest.entries.count == reference.entries.count)
    }

    @Test func theUnpackerStillRefusesIt() throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.appendedArchive(in: directory)

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        }

        #expect(error.code == .duplicateEntry && error.entry == "x", "\(error)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("out").path))
    }

    /// A path stored as a file, then as a directory, then as a symlink:
    /// the symlink; a hard link made while it was a file keeps that file,
    /// as it does on disk, and no later link can name the path as a file.
    @Test func theLastKindWinsAndEarlierLinksKeepTheirFile() throws {
        let directory = try TemporaryDirectory()
        let archive = try OutsideLinkTests.pythonTar(named: "kinds.tar", in: directory, """
            add_file('p', b'old contents\\n')
            add('h', tarfile.LNKTYPE, linkname='p')
            add('p', tarfile.DIRTYPE)
            add('p', tarfile.SYMTYPE, linkname='elsewhere')
            """)
        let manifest = try Manifest(archiveAt: archive)
        #expect(manifest.repeatedPaths == [Array("p".utf8)])
        #expect(manifest.entry(at: Array("p".utf8))?.kind == .symlink)
        #expect(manifest.entry(at: Array("h".utf8))?.size == 13)

        let later = try OutsideLinkTests.pythonTar(named: "later-link.tar", in: directory, """
            add_file('p', b'old contents\\n')
            add('p', tarfile.SYMTYPE, linkname='elsewhere')
            add('h', tarfile.LNKTYPE, linkname='p')
            """)
        let error = try #require(throws: ArchiveError.self) { try Manifest(archiveAt: later) }
        #expect(error.entry == "h", "\(error)")
    }

    /// More entries than the unpacker's 100,000 (the hostile fixture of
    /// 200,000 empty files) read with the default limits, at full size; in
    /// a reduced run, 2,000 from Python's tarfile. Either way the reader
    /// (a child process, `fwk-test-child read-archive manifest`) peaks at
    /// no more than three times the memory of the manifest it makes, above
    /// what it needs for a small archive (measured 2.2 times at full size).
    @Test func manyEntriesReadWithinTheMemoryOfTheirManifest() throws {
        let directory = try TemporaryDirectory()
        let archive = try TestSizes.reduced
            ? Self.manyEntries(2_000, in: directory)
            : HostileFixtureTests.directory.appendingPathComponent("too-many-entries.tar.gz")

        let many = try Self.read(archive)
        let small = try Self.read(Self.manyEntries(10, in: directory))

        #expect(many.entries > TestSizes.pick(full: ArchiveReadLimits.unpacking.maxEntries, reduced: 2_000))
        // A sanitizer's shadow memory and quarantine of freed blocks make a
        // peak that says nothing about the reader's own: checked without one.
        if CorpusTests.sanitizer == nil {
            #expect(many.peak - small.peak <= 3 * many.manifestBytes + (16 << 20), "\(many), \(small)")
        }
    }

    /// Reads `archive` in `fwk-test-child read-archive manifest`: its
    /// entries, the bytes they take, and the child's peak memory (bytes).
    static func read(_ archive: URL) throws -> (entries: Int, manifestBytes: Int, peak: Int) {
        // 200,000 entries take seconds of work; a suite's other processes may make it many more.
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        let outcome = try CorpusTests.run([child, "read-archive", "manifest", archive.path, "--peak-memory"], seconds: 300,
                                          memoryLimit: MemoryBudgetTests.addressSpace)
        let lines = CorpusTests.lines(outcome.output)
        let value = { (name: String) in lines.last { $0.hasPrefix(name + " ") }.flatMap { Int($0.dropFirst(name.count + 1)) } }
        return try (#require(value("entries"), "\(lines) \(outcome.error)"), #require(value("manifest-bytes")), #require(MemoryBudgetTests.peakMemory(outcome)))
    }

    /// A tar of `count` empty files from Python's tarfile, gzipped.
    static func manyEntries(_ count: Int, in directory: TemporaryDirectory) throws -> URL {
        let url = directory.appending("many-\(count).tar.gz")
        let script = """
            import sys, tarfile
            with tarfile.open(sys.argv[1], 'w:gz', format=tarfile.USTAR_FORMAT) as t:
                for n in range(int(sys.argv[2])):
                    t.addfile(tarfile.TarInfo('d%03d/f%07d' % (n % 100, n)))
            """
        try Interop.run("python3", ["-c", script, url.path, String(count)], in: directory.url)
        return url
    }
}
