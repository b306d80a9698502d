import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// The root's own entry (`.` or `./`), which `tar -C dir -cf x.tar .`,
/// `bsdtar -C dir .`, `find . | cpio -o` and every `.deb` write, describes
/// the destination: unpacked, the copy has the source's tree, root mode and
/// time included (issue 22). Archives made by GNU tar, bsdtar and GNU cpio.
@Suite(.startsProcesses) struct RootEntryTests {
    /// A tree with a root of mode 0750, a subdirectory, files and a link,
    /// every time fixed.
    static func makeSource(in directory: TemporaryDirectory) throws -> URL {
        let source = directory.appending("source")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Disk.write("one\n", to: source.appendingPathComponent("a.txt"))
        try Disk.write("two\n", to: source.appendingPathComponent("sub/b.txt"), mode: 0o600)
        try FileManager.default.createSymbolicLink(atPath: source.appendingPathComponent("link").path, withDestinationPath: "sub/b.txt")
        for path in ["a.txt", "sub/b.txt", "link", "sub", ""] {
            Disk.setModificationTime(source.appendingPathComponent(path), seconds: 1_767_225_600, nanoseconds: 0)
        }
        #expect(chmod(source.path, 0o750) == 0)
        return source
    }

    static let tools: [(name: String, script: String)] = [
        ("GNU tar", "tar -C source -czf archive.tgz ."),
        ("GNU tar pax", "tar --format=pax -C source -cf archive.tar ."),
        ("bsdtar", "bsdtar -cf archive.tar -C source ."),
        ("GNU cpio", "cd source && find . | cpio --quiet -o -H newc > ../archive.cpio"),
    ]

    @Test(arguments: tools.map(\.name))
    func aTreePackedFromItsRootUnpacksToTheSameTree(tool: String) throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(in: directory)
        let script = try #require(Self.tools.first { $0.name == tool }).script
        let made = try Interop.run("/bin/sh", ["-c", script], in: directory.url)
        try #require(made.status == 0, "\(made.stderr)")
        let archive = try #require(try Disk.names(in: directory.url).first { $0.hasPrefix("archive.") })

        let copy = directory.appending("copy")
        try ArchiveUnpacker.unpack(archiveAt: directory.appending(archive), to: copy)

        let (copied, original) = (try DiskTree(copy), try DiskTree(source))
        #expect(copied == original, "root mode 0750 and time included:\n\(copied)\n\(original)")
    }

    @Test func aRootEntryThatIsNotADirectoryIsRefused() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("file-root.tar")
        try CanonicalNameAttackTests.write([.init(name: "./", kind: "symlink", content: "elsewhere")], to: archive)
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        }
        #expect(error.code == .unsafePath)
        #expect(error.entry == "./")
        #expect(try Disk.names(in: directory.url) == ["file-root.tar"])
    }

    /// The root stored twice is one directory, as every tar extracts it:
    /// the last entry's mode wins, sanitized (group and other write dropped).
    @Test func theRootEntryTwiceIsOneDirectory() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("twice.tar")
        try CanonicalNameAttackTests.write([.init(name: "./", kind: "dir", mode: 0o700), .init(name: ".", kind: "dir", mode: 0o777)], to: archive)
        let out = directory.appending("out")
        try ArchiveUnpacker.unpack(archiveAt: archive, to: out)
        #expect(try DiskTree(out).entries[""]?.mode == 0o755)
    }

    /// `pack` records the root's own mode, time and owner where the format
    /// keeps them (tar, cpio), as `tar -C dir .` does: the copy an unpack
    /// makes, and the one GNU tar extracts, have the source's root, and the
    /// manifests do not differ (issue 22).
    @Test(arguments: [ArchiveFormat.tar, .tarGzip, ArchiveFormat(.ustar), ArchiveFormat(.gnutar), .cpio])
    func packRecordsTheRootsModeAndTime(format: ArchiveFormat) throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(in: directory)
        let archive = directory.appending("packed." + format.fileExtension)
        try ArchiveWriter.write(contentsOf: source, to: archive, options: ArchiveWriteOptions(format: format))

        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("copy"))
        let original = try DiskTree(source)
        #expect(try DiskTree(directory.appending("copy")) == original)
        // GNU tar's extraction of a tar; bsdtar's of a cpio (GNU cpio leaves "." alone), which sets the root's mode, not its time.
        let isCpio = format.container == .cpio
        try FileManager.default.createDirectory(at: directory.appending("extracted"), withIntermediateDirectories: false)
        try Interop.run(isCpio ? "bsdtar" : "tar", ["-xpf", archive.path, "-C", "extracted"], in: directory.url)
        var extracted = try DiskTree(directory.appending("extracted"))
        if isCpio { extracted.entries[""]?.modified = original.entries[""]!.modified }
        #expect(extracted == original, "\(isCpio ? "bsdtar" : "GNU tar")'s extraction")

        let diff = try ManifestDiff(from: Manifest(contentsOf: source), to: Manifest(archiveAt: archive))
        #expect(diff.isEmpty, "\(diff.changes)")
        let (_, results) = try RoundTrip.check(source, through: [.archive(format), .archive(.zip)])
        #expect(results[0].keepsTree && !results[0].notKept.contains { $0.contains("root") }, "\(results[0])")
        #expect(results[1].notKept.contains("the root directory's own mode and time"), "zip keeps no root entry")
    }
}
