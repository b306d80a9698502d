import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// One manifest whatever holds the tree: a directory on disk, a
/// FileWrapper, an archive streamed; how archive paths are cleaned and
/// checked; and how an input is recognised from its bytes.
@Suite(.startsProcesses) struct ManifestSourceTests {
    static let hostile = HostileFixtureTests.directory

    /// A small tree on disk: nested files, an empty directory, an
    /// executable and a relative symlink.
    static func makeTree(in directory: TemporaryDirectory) throws -> URL {
        let root = directory.appending("tree")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("a/b"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try Disk.write("hello\n", to: root.appendingPathComponent("a/b/hello.txt"))
        try Disk.write("#!/bin/sh\n", to: root.appendingPathComponent("run.sh"), mode: 0o755)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: "a/b/hello.txt")
        return root
    }

    @Test func aDirectoryItsFileWrapperAndItsArchivesGiveOneManifest() throws {
        let directory = try TemporaryDirectory()
        let root = try Self.makeTree(in: directory)
        let disk = try Manifest(contentsOf: root)
        #expect(disk.entries.map(\.displayPath) == [".", "a", "a/b", "a/b/hello.txt", "empty", "link", "run.sh"])
        #expect(disk.entry(at: Array("run.sh".utf8))?.isExecutable == true)
        #expect(disk.entry(at: Array("link".utf8))?.linkTarget == Array("a/b/hello.txt".utf8))
        #expect(disk.entry(at: Array("a/b/hello.txt".utf8))?.contentDigest == SHA256Digest.of(Array("hello\n".utf8)))

        for format in [ArchiveFormat.zip, .tar, .tarZstd, .sevenZip, .cpio] {
            let archive = directory.appending("tree.\(format.fileExtension)")
            try ArchiveWriter.write(contentsOf: root, to: archive, options: ArchiveWriteOptions(format: format))
            let streamed = try Manifest(archiveAt: archive)
            #expect(streamed.treeDigest == disk.treeDigest, "\(format)")
            #expect(streamed.entries.map(\.path) == disk.entries.map(\.path), "\(format)")
            #expect(streamed.entries.map(\.contentDigest) == disk.entries.map(\.contentDigest), "\(format)")
            #expect(streamed.source.kind == .archive)
        }
    }

    @Test func namesOnDiskAreBytes() throws {
        let directory = try TemporaryDirectory()
        let root = try Self.makeTree(in: directory)
        let odd = Array(root.appendingPathComponent("a").path.utf8) + Array("/caf".utf8) + [0xE9, 0]
        let fd = odd.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) } }
        try #require(fd >= 0)
        close(fd)
        let manifest = try Manifest(contentsOf: root)
        let entry = try #require(manifest.entry(at: Array("a/caf".utf8) + [0xE9]))
        #expect(entry.displayPath == "a/caf\\xE9")
        #expect(entry.pathString == nil)
    }

    @Test func aFileWrapperInMemoryGivesTheSameDigest() throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("tree")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("a"), withIntermediateDirectories: true)
        try Disk.write("one", to: root.appendingPathComponent("a/one.txt"))
        let wrapper = FileWrapper(directoryWithFileWrappers: [
            "a": FileWrapper(directoryWithFileWrappers: ["one.txt": FileWrapper(regularFileWithContents: Data("one".utf8))]),
        ])
        #expect(try Manifest(wrapper, name: "memory").treeDigest == (try Manifest(contentsOf: root).treeDigest))
    }

    @Test func aHardLinkTakesTheDigestOfTheFileItNames() throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("tree")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Disk.write("shared", to: root.appendingPathComponent("first"))
        try FileManager.default.linkItem(at: root.appendingPathComponent("first"), to: root.appendingPathComponent("second"))
        let archive = directory.appending("linked.tar")
        let result = try Disk.run("/usr/bin/bsdtar", ["-cf", archive.path, "-C", root.path, "first", "second"])
        try #require(result.status == 0)
        let manifest = try Manifest(archiveAt: archive)
        let link = try #require(manifest.entry(at: Array("second".utf8)))
        #expect(link.kind == .hardLink)
        #expect(link.linkTarget == Array("first".utf8))
        #expect(link.size == 6)
        #expect(link.contentDigest == SHA256Digest.of(Array("shared".utf8)))
        // A bundle holds two files; the tree is the same.
        #expect(manifest.treeDigest == (try Manifest(contentsOf: root).treeDigest))
    }

    @Test func archivePathsAreCleanedAndImpliedDirectoriesAdded() throws {
        // "./" before every entry, the root as "./" with its own mode.
        let dotSlash = try Manifest(archiveAt: Self.hostile.appendingPathComponent("root-entry-dot-slash.tar"))
        #expect(dotSlash.root.kind == .directory)
        #expect(dotSlash.root.permissions != nil, "the \"./\" entry describes the root")
        #expect(!dotSlash.entries.dropFirst().contains { $0.path.starts(with: Array("./".utf8)) })

        let directory = try TemporaryDirectory()
        let script = """
            import tarfile, io, sys
            with tarfile.open(sys.argv[1], "w") as tar:
                data = b"deep"
                info = tarfile.TarInfo("x/y/z.txt"); info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            """
        let archive = directory.appending("implied.tar")
        let result = try Disk.run("/usr/bin/env", ["python3", "-c", script, archive.path])
        try #require(result.status == 0, "\(result.stderr)")
        let manifest = try Manifest(archiveAt: archive)
        #expect(manifest.entries.map(\.displayPath) == [".", "x", "x/y", "x/y/z.txt"])
        let implied = try #require(manifest.entry(at: Array("x".utf8)))
        #expect(implied.kind == .directory)
        #expect(implied.permissions == nil && implied.modified == nil, "an implied directory records nothing")
    }

    @Test(arguments: [
        ("dotdot.tar", "the path leaves the tree"),
        ("absolute-path.tar", "the path leaves the tree"),
        ("file-directory-conflict-file-then-child.tar", "which is a file, not a directory"),
    ])
    func anArchiveThatIsNoTreeIsRefusedNamingTheEntry(file: String, message: String) throws {
        let url = Self.hostile.appendingPathComponent(file)
        #expect {
            try Manifest(archiveAt: url)
        } throws: { error in
            let description = (error as? ManifestError)?.description ?? ""
            return description.hasPrefix(url.relativePath + ": \"") && description.contains(message)
        }
    }

    @Test func devicesAndFIFOsAreListedAsOther() throws {
        let manifest = try Manifest(archiveAt: Self.hostile.appendingPathComponent("device-node-char.tar"))
        #expect(manifest.entries.contains { $0.kind == .other })
    }

    @Test func timeResolutionIsJudgedFromTheTimes() throws {
        let directory = try TemporaryDirectory()
        let root = try Self.makeTree(in: directory)
        // Set, not left to the clock: files made within one clock tick
        // share a time, whose nanoseconds end in zero one time in ten.
        Disk.setModificationTime(root.appendingPathComponent("run.sh"), seconds: 1_700_000_001, nanoseconds: 123_456_789)
        #expect(try Manifest(contentsOf: root).timeResolution == 1)
        let sevenZip = directory.appending("tree.7z")
        try ArchiveWriter.write(contentsOf: root, to: sevenZip, options: ArchiveWriteOptions(format: .sevenZip))
        #expect(try Manifest(archiveAt: sevenZip).timeResolution == 100)
        let gnu = directory.appending("tree.gnu.tar")
        try ArchiveWriter.write(contentsOf: root, to: gnu, options: ArchiveWriteOptions(format: ArchiveFormat(.gnutar)))
        #expect(try Manifest(archiveAt: gnu).timeResolution == 1_000_000_000)
        // Python's zipfile writes DOS times only, which name no time zone: no times.
        let dos = directory.appending("dos.zip")
        let script = "import zipfile, sys\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.writestr(zipfile.ZipInfo('a.txt', (2020, 1, 2, 3, 4, 6)), b'a')\n    z.writestr(zipfile.ZipInfo('b.txt', (2021, 5, 6, 7, 8, 10)), b'b')\n"
        try #require(try Disk.run("/usr/bin/env", ["python3", "-c", script, dos.path]).status == 0)
        #expect(try Manifest(archiveAt: dos).entries.allSatisfy { $0.modified == nil })
        // A zip whose times are all even seconds (here in UT fields) is taken to keep 2 s.
        for name in ["a/b/hello.txt", "a/b", "a", "empty", "link", "run.sh"] { Disk.setModificationTime(root.appendingPathComponent(name), seconds: 1_700_000_002, nanoseconds: 0) }
        let zip = directory.appending("even.zip")
        try ArchiveWriter.write(contentsOf: root, to: zip, options: ArchiveWriteOptions(format: .zip))
        #expect(try Manifest(archiveAt: zip).timeResolution == 2_000_000_000)
    }

    @Test func inputsAreToldApartByTheirBytes() throws {
        let directory = try TemporaryDirectory()
        let root = try Self.makeTree(in: directory)
        func kind(_ name: String) throws -> Manifest.InputKind { try Manifest.inputKind(of: directory.appending(name)) }
        #expect(try kind("tree") == .bundle)
        try Data().write(to: directory.appending("empty"))
        #expect(try kind("empty") == .file, "libarchive would read an empty file as an empty archive")
        try Disk.write("just/a/path\n", to: directory.appending("text.txt"))
        #expect(try kind("text.txt") == .file, "libarchive's mtree reader would take this for an mtree")
        try Disk.write("{\"format\": \"other\"}", to: directory.appending("other.json"))
        #expect(try kind("other.json") == .file)
        try Manifest(contentsOf: root).encoded(as: .json).write(to: directory.appending("manifest.json"))
        #expect(try kind("manifest.json") == .manifest(.json))
        try ArchiveWriter.write(contentsOf: root, to: directory.appending("tree.dat"), options: ArchiveWriteOptions(format: .zip))
        #expect(try kind("tree.dat") == .archive, "the name does not matter")
        try FileManager.default.createSymbolicLink(atPath: directory.appending("link").path, withDestinationPath: "tree")
        #expect(try kind("link") == .file, "a symbolic link is not followed")
    }

    @Test func progressCountsEntriesAndBytes() throws {
        let directory = try TemporaryDirectory()
        let root = try Self.makeTree(in: directory)
        let progress = ManifestProgress()
        _ = try Manifest(contentsOf: root, progress: progress)
        #expect(progress.entries == 6, "every entry below the root")
        #expect(progress.bytes == Int64("hello\n#!/bin/sh\n".utf8.count))
    }
}
