import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Issue 33: a directory stored twice (tar-rs's `duplicate_dirs.tar`, or
/// `tar -cf a.tar d d/a d`) was refused as "this path twice", though
/// bsdtar, GNU tar and tar-rs extract it. A directory stored again as a
/// directory is one directory, with its last entry's attributes; a file
/// stored twice and a path that changes kind are still refused
/// (HostileFixtureTests, RepeatedPathTests).
@Suite(.startsProcesses) struct RepeatedDirectoryTests {
    @Test func aDirectoryStoredTwiceIsOneDirectory() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("twice.tar")
        try CanonicalNameAttackTests.write([
            .init(name: "d/", kind: "dir", mode: 0o700),
            .init(name: "d/f", kind: "file", content: "inside"),
            .init(name: "d/", kind: "dir", mode: 0o750),
        ], to: archive)

        let out = directory.appending("out")
        let summary = try ArchiveUnpacker.unpack(archiveAt: archive, to: out)
        #expect(summary.entries == 3)
        let tree = try DiskTree(out)
        #expect(tree.entries["d"]?.mode == 0o750, "the last entry's mode")
        #expect(tree.entries["d/f"]?.contents == Data("inside".utf8))

        let manifest = try Manifest(archiveAt: archive)
        #expect(manifest.repeatedPaths.isEmpty, "one directory, not a repeated path")
        #expect(manifest.entry(at: Array("d".utf8))?.permissions == 0o750)

        let wrapper = try ArchiveReader.fileWrapper(contentsOf: archive)
        #expect(wrapper.fileWrappers?["d"]?.fileWrappers?["f"]?.regularFileContents == Data("inside".utf8))
        #expect(wrapper.fileWrappers?["d"]?.attributes.permissions == 0o750)
    }

    /// GNU tar's own archive of `d d/a d` stores `d/` and `d/a/` twice each.
    @Test func gnuTarsArchiveOfARepeatedDirectoryUnpacks() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.appending("d/a"), withIntermediateDirectories: true)
        try Interop.run("tar", ["-cf", "dup.tar", "d", "d/a", "d"], in: directory.url)
        let out = directory.appending("out")
        let summary = try ArchiveUnpacker.unpack(archiveAt: directory.appending("dup.tar"), to: out)
        #expect(summary.entries == 5)
        #expect(try DiskTree(out).entries.keys.sorted() == ["", "d", "d/a"])
    }

    /// Both zip readers take a directory member stored twice as one directory.
    @Test func aZipDirectoryStoredTwiceIsOneDirectory() throws {
        let directory = try TemporaryDirectory()
        let zip = directory.appending("twice.zip")
        try ZipBuilder(members: [
            ZipBuilder.Member(name: "dir/", contents: []), ZipBuilder.Member(name: "dir/x", contents: [1, 2, 3]),
            ZipBuilder.Member(name: "dir/", contents: []),
        ]).write(to: zip, scratch: directory.url)
        for wrapper in [try ArchiveReader.fileWrapper(contentsOf: zip, formats: .zip), try ZipContainer.fileWrapper(contentsOf: zip)] {
            #expect(wrapper.fileWrappers?["dir"]?.fileWrappers?["x"]?.regularFileContents == Data([1, 2, 3]))
        }
        try ArchiveUnpacker.unpack(archiveAt: zip, to: directory.appending("out"))
        #expect(try DiskTree(directory.appending("out")).entries["dir/x"]?.contents == Data([1, 2, 3]))
    }
}
