@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 25, item 1: a zip opened with ``ZipContainer/fileWrapper(contentsOf:limits:)``
/// reads its end records and central directory only; a member is read on
/// first use, alone, and checked (size, CRC-32); names go through the
/// in-memory reader's rules with its errors; a zip replaced or written to
/// under an open tree gives the "changed" error, never other bytes.
@Suite(.startsProcesses) struct ZipContainerReadTests {
    /// A document's files: a `mimetype`, text, JSON and media that does not compress.
    static func documentFiles(seed: UInt64) -> [(path: String, contents: [UInt8])] {
        var random = SplitMix64(seed: seed)
        let words = Array("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod\n".utf8)
        var text: [UInt8] = []
        while text.count < 200_000 { text += words.shuffled(using: &random).prefix(Int(random.next() % 40) + 10) }
        var files: [(String, [UInt8])] = [
            ("mimetype", Array("application/vnd.oasis.opendocument.text".utf8)),
            ("content.xml", text),
            ("meta.json", Array("{\"title\": \"A document\", \"pages\": 12}\n".utf8)),
        ]
        for index in 1...6 { files.append(("media/photo\(index).bin", random.bytes(512 << 10))) }
        return files
    }

    /// Writes `files` below `directory`/src and zips them with Info-ZIP's
    /// `zip` as an OpenDocument is made: `mimetype` first and stored, no
    /// extra fields (`-X`), then the rest.
    static func infoZipDocument(_ files: [(path: String, contents: [UInt8])], in directory: TemporaryDirectory, name: String = "doc.zip") throws -> URL {
        let source = directory.appending("src")
        for (path, contents) in files {
            let url = source.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents).write(to: url)
        }
        let zip = directory.appending(name)
        try Interop.run("zip", ["-q", "-X", "-0", zip.path, "mimetype"], in: source)
        try Interop.run("zip", ["-q", "-X", "-r", zip.path] + files.map(\.path).filter { $0 != "mimetype" }, in: source)
        return zip
    }

    /// The wrapper at `path` below `root`.
    static func wrapper(at path: String, in root: FileWrapper) throws -> FileWrapper {
        var current = root
        for name in path.split(separator: "/") { current = try #require(current.fileWrappers?[String(name)], "no \(path)") }
        return current
    }

    @Test func openingReadsOnlyTheCentralDirectoryAndAMemberOnlyItself() throws {
        let directory = try TemporaryDirectory()
        let files = Self.documentFiles(seed: 25)
        let zip = try Self.infoZipDocument(files, in: directory)
        let archiveSize = try #require(try FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? Int)
        try #require(archiveSize > 3 << 20)

        let (root, opened) = try ThreadIO.bytesRead { try ZipContainer.fileWrapper(contentsOf: zip) }
        // The last 64 KiB + 22 bytes (where the end record may be), the
        // first 64 bytes, the directory of 10 records, and this thread's
        // read of its own counters.
        #expect(opened < 70_000, "opening read \(opened) bytes of a \(archiveSize)-byte zip")
        for (path, contents) in files {
            let file = try Self.wrapper(at: path, in: root)
            #expect(file.isRegularFile)
            #expect(file.regularFileSize == contents.count)
            #expect(!file.isRegularFileContentsLoaded)
        }

        let photo = try Self.wrapper(at: "media/photo3.bin", in: root)
        let (data, read) = try ThreadIO.bytesRead { try photo.readRegularFileContents() }
        #expect(Array(data) == files.first { $0.path == "media/photo3.bin" }!.contents)
        #expect(read >= 512 << 10 && read < (512 << 10) + 4096, "reading a 512 KiB member read \(read) bytes")
        #expect(try Self.wrapper(at: "media/photo4.bin", in: root).isRegularFileContentsLoaded == false)

        // Deflated text, streamed in blocks without loading it.
        let text = try Self.wrapper(at: "content.xml", in: root)
        var streamed: [UInt8] = []
        try text.forEachContentsBlock(blockSize: 10_000) { block in
            #expect(block.count <= 10_000)
            streamed += block
        }
        #expect(streamed == files.first { $0.path == "content.xml" }!.contents)
        #expect(!text.isRegularFileContentsLoaded)
    }

    /// A lazily read tree's members stream into whatever writes it: a
    /// bundle on disk (TreeWriter) and another archive (ArchiveWriter).
    @Test func aLazyTreeWritesToDiskAndPacksAsAnyTree() throws {
        let directory = try TemporaryDirectory()
        let files = Self.documentFiles(seed: 31)
        let zip = try Self.infoZipDocument(files, in: directory)
        let expected = Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.contents) })

        let bundle = directory.appending("bundle")
        try ZipContainer.fileWrapper(contentsOf: zip).write(to: bundle, options: .atomic, originalContentsURL: nil)
        #expect(try ZipContainerSaveTests.files(of: FileWrapper(url: bundle)) == expected)

        let tree = try ZipContainer.fileWrapper(contentsOf: zip)
        let tar = directory.appending("doc.tar")
        try ArchiveWriter.write(tree, to: tar, options: ArchiveWriteOptions(format: .tar))
        #expect(try ZipContainerSaveTests.files(of: ArchiveReader.fileWrapper(contentsOf: tar)) == expected)
        #expect(try Self.wrapper(at: "media/photo1.bin", in: tree).isRegularFileContentsLoaded == false, "packing kept a member's bytes")
    }

    @Test func pythonZipsReadAsTheyAreWrittenZip64Included() throws {
        let directory = try TemporaryDirectory()
        let zip = directory.appending("python.zip")
        try Interop.run("python3", ["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.writestr(zipfile.ZipInfo("dir/"), b"")
                z.writestr("dir/deflated.txt", b"hello deflate " * 5000, compress_type=zipfile.ZIP_DEFLATED)
                z.writestr("stored.bin", bytes(range(256)) * 40, compress_type=zipfile.ZIP_STORED)
                with z.open(zipfile.ZipInfo("forced64.txt"), "w", force_zip64=True) as f:
                    f.write(b"zip64 sizes in the local header " * 3000)
                z.writestr("empty", b"")
            """, zip.path], in: directory.url)
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        #expect(try Self.wrapper(at: "dir", in: root).isDirectory)
        #expect(Array(try Self.wrapper(at: "dir/deflated.txt", in: root).readRegularFileContents()) == Array("hello deflate ".utf8).repeated(5000))
        #expect(Array(try Self.wrapper(at: "stored.bin", in: root).readRegularFileContents()) == (0..<256).map(UInt8.init).repeated(40))
        #expect(Array(try Self.wrapper(at: "forced64.txt", in: root).readRegularFileContents()) == Array("zip64 sizes in the local header ".utf8).repeated(3000))
        #expect(try Self.wrapper(at: "empty", in: root).readRegularFileContents().isEmpty)
    }

    /// Sizes and offsets in zip64 fields only (0xFFFFFFFF in the fixed
    /// ones), with a zip64 end record, or with bytes before the zip (a
    /// self-extracting stub), whose offsets are corrected.
    @Test(arguments: [(0, true), (100, false)])
    func zip64FieldsAndEndRecordAreFollowed(prefix: Int, zip64End: Bool) throws {
        let directory = try TemporaryDirectory()
        let zip = directory.appending("zip64.zip")
        let members = [
            ZipBuilder.Member(name: "a.txt", contents: ZipMemberTests.text(70_000, seed: 1), zip64: true),
            ZipBuilder.Member(name: "b/c.bin", contents: ZipMemberTests.noise(5000, seed: 2), method: 0, zip64: true),
        ]
        try ZipBuilder(members: members, prefix: prefix, zip64End: zip64End).write(to: zip, scratch: directory.url)
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        for member in members {
            #expect(Array(try Self.wrapper(at: member.name, in: root).readRegularFileContents()) == member.contents)
        }
    }

    @Test func aMemberWhoseCRCOrSizeIsWrongIsAnErrorNamingArchiveAndMember() throws {
        let directory = try TemporaryDirectory()
        let contents = ZipMemberTests.text(20_000, seed: 3)
        let cases: [(ZipBuilder.Member, String)] = [
            (ZipBuilder.Member(name: "crc.txt", contents: contents, crc: 0x1234_5678), "CRC-32"),
            (ZipBuilder.Member(name: "stored-crc.txt", contents: contents, method: 0, crc: 0x1234_5678), "CRC-32"),
            (ZipBuilder.Member(name: "short.txt", contents: contents, size: 19_999), "more than the 19999 bytes"),
            (ZipBuilder.Member(name: "long.txt", contents: contents, size: 20_001), "expands to 20000 bytes, not the 20001"),
            (ZipBuilder.Member(name: "damaged.txt", contents: contents, damaged: true), "damaged"),
            (ZipBuilder.Member(name: "cut.txt", contents: contents, cut: 10), "ends before its deflate stream"),
        ]
        for (member, expected) in cases {
            let zip = directory.appending("\(member.name).zip")
            try ZipBuilder(members: [ZipBuilder.Member(name: "fine.txt", contents: contents), member]).write(to: zip, scratch: directory.url)
            let root = try ZipContainer.fileWrapper(contentsOf: zip)
            #expect(try Self.wrapper(at: "fine.txt", in: root).readRegularFileContents() == Data(contents))
            let file = try Self.wrapper(at: member.name, in: root)
            let error = try #require(throws: FileWrapperError.self) { try file.readRegularFileContents() }
            #expect(error.path == zip.path && error.code == .ioError)
            #expect(error.description.contains("member \"\(member.name)\"") && error.description.contains(expected), "\(error)")
            #expect(!file.isRegularFileContentsLoaded)
            #expect(throws: FileWrapperError.self) { try file.forEachContentsBlock { _ in } }
        }
    }

    @Test func anArchiveReplacedOrWrittenUnderAnOpenTreeGivesTheChangedError() throws {
        let directory = try TemporaryDirectory()
        let files = Self.documentFiles(seed: 7)
        let zip = try Self.infoZipDocument(files, in: directory)

        // Replaced by another zip with the same members, renamed over it.
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        let other = directory.appending("other.zip")
        try FileManager.default.copyItem(at: zip, to: other)
        #expect(rename(other.path, zip.path) == 0)
        let replaced = try #require(throws: FileWrapperError.self) { try Self.wrapper(at: "content.xml", in: root).readRegularFileContents() }
        #expect(replaced.code == .changedOnDisk && replaced.path == zip.path && replaced.description.contains("changed on disk"), "\(replaced)")

        // Written to in place: a byte appended.
        let again = try ZipContainer.fileWrapper(contentsOf: zip)
        let handle = try FileHandle(forWritingTo: zip)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let written = try #require(throws: FileWrapperError.self) { try Self.wrapper(at: "meta.json", in: again).readRegularFileContents() }
        #expect(written.code == .changedOnDisk, "\(written)")
    }

    /// Hostile names are refused as the in-memory reader refuses them: the
    /// same code, entry and message.
    @Test func hostileNamesAreRefusedWithTheInMemoryReadersErrors() throws {
        let directory = try TemporaryDirectory()
        let cases: [[String]] = [
            ["../evil.txt"], ["/etc/passwd"], ["a/../../b.txt"], ["twice.txt", "twice.txt"],
            ["K.txt", "\u{212A}.txt"], ["caf\u{E9}.txt", "cafe\u{301}.txt"], [String(repeating: "n", count: 300)],
            [""],
        ]
        for (number, names) in cases.enumerated() {
            let zip = directory.appending("hostile\(number).zip")
            try ZipBuilder(members: names.map { ZipBuilder.Member(name: $0, contents: $0.hasSuffix("/") ? [] : [1, 2, 3]) })
                .write(to: zip, scratch: directory.url)
            let inMemory = try #require(throws: ArchiveError.self, "\(names)") { try ArchiveReader.fileWrapper(contentsOf: zip, formats: .zip) }
            let lazy = try #require(throws: ArchiveError.self, "\(names)") { try ZipContainer.fileWrapper(contentsOf: zip) }
            #expect(lazy.code == inMemory.code && lazy.entry == inMemory.entry && lazy.message == inMemory.message,
                    "\(names): lazily \(lazy), in memory \(inMemory)")
        }
    }

    @Test func encryptedMembersAndOtherMethodsAreRefused() throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("secret.txt")
        try Data("top secret".utf8).write(to: source)
        let encrypted = directory.appending("encrypted.zip")
        try Interop.run("zip", ["-q", "-P", "password", encrypted.path, "secret.txt"], in: directory.url)
        let refused = try #require(throws: ArchiveError.self) { try ZipContainer.fileWrapper(contentsOf: encrypted) }
        #expect(refused.code == .encrypted && refused.entry == "secret.txt")

        // Deflate64 (method 9), which libarchive does not decode either (bzip2 and the others it decodes: ZipLazyMethodTests).
        try Data("top secret\n".utf8.repeated(100)).write(to: source)
        let deflate64 = directory.appending("deflate64.zip")
        try Interop.run("7z", ["a", "-bd", "-tzip", "-mm=Deflate64", deflate64.path, "secret.txt"], in: directory.url)
        let method = try #require(throws: ArchiveError.self) { try ZipContainer.fileWrapper(contentsOf: deflate64) }
        #expect(method.code == .unsupportedFormat && method.entry == "secret.txt" && method.message.contains("method 9"))
    }
}

extension Collection {
    /// The elements `count` times over.
    func repeated(_ count: Int) -> [Element] {
        Array((0..<count).map { _ in self }.joined())
    }
}
