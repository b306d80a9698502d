import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Large files of an uncompressed tar are copied from the archive file in
/// the kernel (`copy_file_range`), never read into the process: whatever
/// headers come before them (GNU long names, pax records), one after the
/// other, and never for a sparse entry, whose bytes in the archive are not
/// its contents. A truncated member or one over the byte limit is refused
/// as when its bytes are read.
@Suite(.startsProcesses) struct StoredCopyTests {
    /// Contents larger than the unpacker gives its workers (128 KiB).
    static func large(_ size: Int, seed: Int) -> [UInt8] {
        [UInt8](count: size) { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 7 &+ seed) }
    }

    @Test func largeFilesAreCopiedWithoutReadingThem() throws {
        let directory = try TemporaryDirectory()
        var tar = TarBuilder()
        let first = Self.large(3 << 20, seed: 1)
        let second = Self.large(5 << 20 + 123, seed: 2)
        tar.file("small.txt", contents: Array("small".utf8))
        tar.file("first.bin", contents: first, modified: 1_700_000_000)
        tar.file("second.bin", contents: second, mode: 0o755, modified: 1_700_000_001)
        let archive = directory.appending("large.tar")
        try tar.archive.write(to: archive)

        // The unpack reads the archive on this thread; 8 MiB through 64 KiB
        // reads would take over 120 calls.
        let before = try ThreadIO.readCalls()
        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        let calls = try ThreadIO.readCalls() - before
        #expect(calls < 40, "\(calls) read calls for 8 MiB of contents")

        let tree = try DiskTree(directory.appending("out"))
        #expect(tree.entries["first.bin"]?.contents == Data(first))
        #expect(tree.entries["second.bin"]?.contents == Data(second))
        #expect(tree.entries["second.bin"]?.mode == 0o755)
        #expect(tree.entries["second.bin"]?.modified.seconds == 1_700_000_001)
        #expect(tree.entries["small.txt"]?.contents == Data("small".utf8))
    }

    /// GNU tar's long names (`././@LongLink` entries) and bsdtar's pax
    /// records come between a member's header and its contents.
    @Test(arguments: [["tar", "--format=gnu"], ["tar", "--format=pax"], ["bsdtar", "--format=pax"], ["bsdtar", "--format=ustar"]])
    func filesAfterExtendedHeadersKeepTheirBytes(tool: [String]) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        let longName = String(repeating: "a-long-folder-name/", count: 6) + "contents.bin"
        var files: [String: [UInt8]] = [
            "plain.bin": Self.large(300_000, seed: 3),
            "ünïcode name.bin": Self.large(200_001, seed: 4),
        ]
        if tool.last != "--format=ustar" { files[longName] = Self.large(1 << 20, seed: 5) }
        for (path, contents) in files { try Disk.write(Data(contents), to: source.appendingPathComponent(path)) }
        let archive = directory.appending("tool.tar")
        let result = try Disk.run("/usr/bin/env", tool + ["-cf", archive.path, "-C", source.path] + files.keys.sorted())
        #expect(result.status == 0, "\(result.stderr)")

        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        for (path, contents) in files {
            #expect(try Data(contentsOf: directory.appending("out").appendingPathComponent(path)) == Data(contents), "\(path)")
        }
    }

    /// A sparse member's bytes in the archive are its data regions only:
    /// they are read through libarchive, which puts the holes back.
    @Test func aSparseFileGetsItsHolesBack() throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        let path = source.appendingPathComponent("sparse.bin")
        let data = Self.large(200_000, seed: 6)
        let fd = open(path.path, O_WRONLY | O_CREAT, 0o644)
        #expect(fd >= 0)
        _ = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 4 << 20) }
        #expect(ftruncate(fd, 8 << 20) == 0)
        close(fd)
        let archive = directory.appending("sparse.tar")
        let result = try Disk.run("/usr/bin/env", ["tar", "--sparse", "-cf", archive.path, "-C", source.path, "sparse.bin"])
        #expect(result.status == 0, "\(result.stderr)")

        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        var expected = [UInt8](repeating: 0, count: 8 << 20)
        expected.replaceSubrange((4 << 20)..<((4 << 20) + data.count), with: data)
        #expect(try Data(contentsOf: directory.appending("out/sparse.bin")) == Data(expected))
    }

    @Test func aTruncatedMemberIsRefusedAndNothingIsLeft() throws {
        let directory = try TemporaryDirectory()
        var tar = TarBuilder()
        tar.file("whole.bin", contents: Self.large(400_000, seed: 7))
        tar.file("cut.bin", contents: Self.large(2 << 20, seed: 8))
        let archive = directory.appending("cut.tar")
        try Data(tar.archive.prefix(tar.archive.count - (1 << 20))).write(to: archive)

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        }
        #expect(error.entry == "cut.bin")
        #expect(try Disk.names(in: directory.url) == ["cut.tar"])
    }

    @Test func theByteLimitHoldsBeforeAnythingIsCopied() throws {
        let directory = try TemporaryDirectory()
        var tar = TarBuilder()
        tar.file("big.bin", contents: Self.large(1 << 20, seed: 9))
        let archive = directory.appending("big.tar")
        try tar.archive.write(to: archive)
        var options = ArchiveUnpackOptions()
        options.limits.maxBytes = 500_000

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"), options: options)
        }
        #expect(error.entry == "big.bin")
        #expect(error.limit == .maxBytes)
        #expect(try Disk.names(in: directory.url) == ["big.tar"])
    }
}
