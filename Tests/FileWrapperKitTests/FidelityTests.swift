import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// A bundle read lazily and written elsewhere is the same tree: bytes,
/// kinds, permissions, modification times to the nanosecond, symlink
/// targets verbatim, empty directories, non-ASCII names and `user.*`
/// extended attributes.
@Suite struct FidelityTests {
    /// Builds a bundle that exercises everything a bundle can hold.
    static func makeRichBundle(at root: URL) throws {
        let manager = FileManager.default
        try Disk.write("{\"entries\": 3}\n", to: root.appendingPathComponent("index.json"))
        try Disk.write("#!/bin/sh\necho hi\n", to: root.appendingPathComponent("Scripts/run.sh"), mode: 0o755)
        try Disk.write("secret", to: root.appendingPathComponent("private.txt"), mode: 0o600)
        try Disk.write("Lisbon", to: root.appendingPathComponent("Entries/Caf\u{E9} Pr\u{E9}f\u{E9}r\u{E9}.md"))
        try Disk.write("Tokyo", to: root.appendingPathComponent("Entries/\u{6771}\u{4EAC}.md"))
        try Disk.write(Data([UInt8](count: 300_000) { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }), to: root.appendingPathComponent("Media/blob.bin"))
        try Disk.write(Data(), to: root.appendingPathComponent("Media/empty.bin"))
        try manager.createDirectory(at: root.appendingPathComponent("Drafts/Nested Empty"), withIntermediateDirectories: true)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("Latest.md").path, withDestinationPath: "Entries/\u{6771}\u{4EAC}.md")
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("Cover").path, withDestinationPath: "Media/")
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("Absolute").path, withDestinationPath: "/nonexistent/target/../x")
        try manager.createDirectory(at: root.appendingPathComponent("ReadOnly"), withIntermediateDirectories: true)
        try Disk.write("locked", to: root.appendingPathComponent("ReadOnly/inside.txt"), mode: 0o444)
        try Disk.setXattr("user.comment", "a note", on: root.appendingPathComponent("index.json"))
        try Disk.setXattr("user.empty", "", on: root.appendingPathComponent("Media/blob.bin"))
        try Disk.setXattr("user.folder", "tag", on: root.appendingPathComponent("Entries"))
        chmod(root.appendingPathComponent("ReadOnly").path, 0o555)
        var second = 1_700_000_000
        for path in ["index.json", "Scripts/run.sh", "private.txt", "Media/blob.bin", "Latest.md", "Cover", "Absolute",
                     "ReadOnly/inside.txt", "Scripts", "Media", "Entries", "Drafts/Nested Empty", "Drafts", "ReadOnly", ""] {
            second += 1
            Disk.setModificationTime(root.appendingPathComponent(path), seconds: second, nanoseconds: 123_456_789)
        }
    }

    @Test(arguments: [FileWrapper.WritingOptions(), .atomic])
    func lazyReadThenWriteElsewhereKeepsEverything(options: FileWrapper.WritingOptions) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("Source.bundle")
        try Self.makeRichBundle(at: source)
        let destination = directory.appending("Copy.bundle")

        let wrapper = try FileWrapper(url: source)
        try wrapper.write(to: destination, options: options, originalContentsURL: nil)

        let expected = try DiskTree(source)
        let actual = try DiskTree(destination)
        #expect(actual == expected, "\(actual)\n---\n\(expected)")
        #expect(expected.entries["Drafts/Nested Empty"]?.kind == "directory")
        #expect(expected.entries["Absolute"]?.linkTarget == "/nonexistent/target/../x")
        #expect(expected.entries["index.json"]?.xattrs["user.comment"] == Data("a note".utf8))
    }

    @Test func typedAttributesKeepNanosecondsAndExtendedAttributes() throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("Source.bundle")
        try Self.makeRichBundle(at: source)

        let wrapper = try FileWrapper(url: source)
        let index = try #require(wrapper.fileWrappers?["index.json"])
        #expect(index.attributes.modificationDate == FileTimestamp(seconds: 1_700_000_001, nanoseconds: 123_456_789))
        #expect(index.attributes.permissions == 0o644)
        #expect(index.attributes.extendedAttributes == ["user.comment": Data("a note".utf8)])
        #expect(wrapper.fileWrappers?["Scripts"]?.fileWrappers?["run.sh"]?.attributes.permissions == 0o755)
        #expect(wrapper.fileWrappers?["Cover"]?.symbolicLinkDestination == "Media/")
        #expect(wrapper.fileWrappers?["Latest.md"]?.symbolicLinkDestinationURL?.relativePath == "Entries/\u{6771}\u{4EAC}.md")
    }

    @Test func attributesSetInMemoryAreWritten() throws {
        let directory = try TemporaryDirectory()
        let file = FileWrapper(regularFileWithContents: Data("x".utf8))
        file.attributes = .init(
            permissions: 0o640, modificationDate: FileTimestamp(seconds: 1_234_567_890, nanoseconds: 5),
            extendedAttributes: ["user.origin": Data("test".utf8)])
        let folder = FileWrapper(directoryWithFileWrappers: ["a.txt": file])
        folder.attributes.permissions = 0o750
        try folder.write(to: directory.appending("Out"), options: .atomic, originalContentsURL: nil)

        let tree = try DiskTree(directory.appending("Out"))
        #expect(tree.entries["a.txt"]?.mode == 0o640)
        #expect(tree.entries["a.txt"]?.modified == .init(seconds: 1_234_567_890, nanoseconds: 5))
        #expect(tree.entries["a.txt"]?.xattrs == ["user.origin": Data("test".utf8)])
        #expect(tree.entries[""]?.mode == 0o750)
    }

    @Test func immediateAndUnmappedReadsGiveTheSameBytes() throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("Source.bundle")
        try Self.makeRichBundle(at: source)
        let expected = try Data(contentsOf: source.appendingPathComponent("Media/blob.bin"))
        for options: FileWrapper.ReadingOptions in [[], .immediate, .withoutMapping, [.immediate, .withoutMapping]] {
            let wrapper = try FileWrapper(url: source, options: options)
            let blob = try #require(wrapper.fileWrappers?["Media"]?.fileWrappers?["blob.bin"])
            #expect(blob.isRegularFileContentsLoaded == options.contains(.immediate))
            #expect(blob.regularFileContents == expected)
        }
    }
}
