import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// The unpacker to disk: every hostile fixture refused with the archive,
/// the entry and the limit named, and nothing left behind; accepted trees
/// made exactly; the destination replaced only when asked and only on success.
@Suite struct UnpackTests {
    typealias Fixture = HostileFixtureTests.Fixture

    /// Option names as they appear in limit errors, by the manifest's limit.
    static let limitNames = [
        "entries": "maxEntries", "bytes": "maxBytes", "ratio": "maxRatio", "path-length": "maxPathLength",
        "name-length": "maxNameLength", "depth": "maxDepth", "link-length": "maxLinkLength",
    ]

    static func fixtureURL(_ fixture: Fixture) -> URL {
        HostileFixtureTests.directory.appendingPathComponent(fixture.file)
    }

    @Test(arguments: HostileFixtureTests.fixtures.filter { $0.expect == "refuse" })
    func isRefused(fixture: Fixture) throws {
        let directory = try TemporaryDirectory()
        let destination = directory.appending("out")
        var options = ArchiveUnpackOptions()
        if fixture.limit == "bytes" {
            // The 5 GiB bomb would trip the ratio limit first; without it, the
            // byte limit must stop it: the default (4 GiB written first) at
            // full size, 64 MiB in a reduced run.
            options.limits.maxRatio = .infinity
            options.limits.maxBytes = TestSizes.pick(full: options.limits.maxBytes, reduced: 64 << 20)
        }
        if fixture.limit == "entries" {
            // 200,000 entries: refused past the default 100,000 at full size, past 1,000 in a reduced run.
            options.limits.maxEntries = TestSizes.pick(full: options.limits.maxEntries, reduced: 1000)
        }

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: Self.fixtureURL(fixture), to: destination, options: options)
        }
        #expect(error.archive == Self.fixtureURL(fixture).path)
        if let entry = fixture.entry, error.code != .corrupt {
            #expect(error.entry == entry, "\(error)")
        }
        if let limit = fixture.limit {
            #expect(error.code == .limitExceeded)
            #expect(error.limit?.rawValue == Self.limitNames[limit], "\(error)")
            #expect(error.description.hasSuffix("(\(try #require(Self.limitNames[limit])))"))
        }
        #expect(try Disk.names(in: directory.url).isEmpty, "the destination and the temporary are gone")
        let outside = try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { $0.contains("FileWrapperKit-hostile") }
        #expect(outside.isEmpty)
    }

    @Test(arguments: HostileFixtureTests.fixtures.filter { $0.expect == "accept" })
    func isUnpackedExactly(fixture: Fixture) throws {
        let directory = try TemporaryDirectory()
        let destination = directory.appending("out")
        try ArchiveUnpacker.unpack(archiveAt: Self.fixtureURL(fixture), to: destination)

        let tree = try DiskTree(destination)
        // The root is 0755 unless the archive has an entry for it.
        var expected = ["": "directory 0755"]
        for entry in try #require(fixture.tree) {
            expected[entry.path] = [entry.kind, entry.mode, entry.target].compactMap { $0 }.joined(separator: " ")
        }
        var actual: [String: String] = [:]
        for (path, entry) in tree.entries {
            actual[path] = entry.kind == "symlink"
                ? "symlink \(entry.linkTarget ?? "")"
                : "\(entry.kind) \(String(entry.mode, radix: 8).leftPadded(to: 4))"
        }
        #expect(actual == expected)
        #expect(try Disk.names(in: directory.url) == ["out"], "no temporary left beside the destination")
    }

    @Test(arguments: ArchiveFormat.allWritable)
    func aPackedTreeUnpacksTheSame(format: ArchiveFormat) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("tree.\(format.fileExtension)")
        let tree = ArchiveRoundTripTests.sampleTree()
        try ArchiveWriter.write(tree, to: archive, options: ArchiveWriteOptions(format: format))

        let summary = try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))

        let unpacked = try FileWrapper(url: directory.appending("out"))
        let keepsNanoseconds = format.keepsNanoseconds
        #expect(ArchiveRoundTripTests.summary(unpacked, nanoseconds: keepsNanoseconds)
            == ArchiveRoundTripTests.summary(tree, nanoseconds: keepsNanoseconds))
        #expect(summary.bytes == 300_000 + 14 + 13 + 14 + 10)
    }

    @Test func anExistingDestinationIsRefusedAndKept() throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.archive(of: ["new.txt": "new"], in: directory)
        let destination = directory.appending("out")
        try Disk.write("old", to: destination.appendingPathComponent("old.txt"))

        let error = try #require(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: archive, to: destination) }

        #expect(error.code == .destinationExists)
        #expect(try Disk.names(in: destination) == ["old.txt"])
        #expect(try Disk.names(in: directory.url) == ["out", "tree.tar"])
    }

    @Test func replacingSwapsTheDestinationOnlyOnSuccess() throws {
        let directory = try TemporaryDirectory()
        let destination = directory.appending("out")
        try Disk.write("old", to: destination.appendingPathComponent("old.txt"))
        let replace = ArchiveUnpackOptions(replacesExisting: true)

        let bad = HostileFixtureTests.directory.appendingPathComponent("truncated.tar.gz")
        #expect(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: bad, to: destination, options: replace) }
        #expect(try Disk.names(in: destination) == ["old.txt"], "a failed unpack leaves the old tree")

        let archive = try Self.archive(of: ["new.txt": "new"], in: directory)
        try ArchiveUnpacker.unpack(archiveAt: archive, to: destination, options: replace)
        #expect(try Disk.names(in: destination) == ["new.txt"])
        #expect(try Disk.names(in: directory.url) == ["out", "tree.tar"], "the old tree and the temporary are removed")
    }

    @Test func bytesAreCountedAcrossEntriesAsWritten() throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.archive(of: ["a": String(repeating: "a", count: 600), "b": String(repeating: "b", count: 600)], in: directory)
        var options = ArchiveUnpackOptions()
        options.limits.maxBytes = 1000

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"), options: options)
        }
        #expect(error.entry == "b")
        #expect(error.limit == .maxBytes)
    }

    @Test func aSymlinkThatWouldRedirectAnEarlierOneIsRefused() throws {
        // `a -> z/../x` is inside while `z` does not exist; once `z -> .`,
        // `a` would lead to the tree's parent.
        let tree = FileWrapper(directoryWithFileWrappers: [
            "a": FileWrapper(symbolicLinkWithDestination: "z/../x"),
            "z": FileWrapper(symbolicLinkWithDestination: "."),
        ])
        let directory = try TemporaryDirectory()
        let archive = directory.appending("links.tar")
        try ArchiveWriter.write(tree, to: archive, options: ArchiveWriteOptions(format: .tar))

        let error = try #require(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out")) }

        #expect(error.entry == "z")
        #expect(error.code == .unsafePath)
    }

    /// `/` followed by a combining mark is one `Character` but still a
    /// separator to the kernel: `../\u{301}x` would be written beside the
    /// destination, `/\u{301}x` at the root of the file system.
    @Test(arguments: ["../\u{301}escaped.txt", "/\u{301}escaped.txt", "a/../\u{301}escaped.txt"])
    func aSlashBeforeACombiningMarkStillSeparatesNames(entry: String) throws {
        let directory = try TemporaryDirectory()
        var tar = TarBuilder()
        tar.file(entry, contents: Array("escaped".utf8))
        let archive = directory.appending("combining.tar")
        try tar.archive.write(to: archive)

        let error = try #require(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out")) }

        #expect(error.code == .unsafePath && error.entry == entry)
        #expect(try Disk.names(in: directory.url) == ["combining.tar"])
        #expect(!FileManager.default.fileExists(atPath: "/\u{301}escaped.txt"))
    }

    @Test func aReadOnlyDirectoryGetsItsModeAfterItsContents() throws {
        let locked = FileWrapper(directoryWithFileWrappers: ["inside.txt": FileWrapper(regularFileWithContents: Data("x".utf8))])
        locked.attributes.permissions = 0o555
        let directory = try TemporaryDirectory()
        let archive = directory.appending("locked.tar")
        try ArchiveWriter.write(FileWrapper(directoryWithFileWrappers: ["locked": locked]), to: archive, options: ArchiveWriteOptions(format: .tar))

        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))

        let tree = try DiskTree(directory.appending("out"))
        #expect(tree.entries["locked"]?.mode == 0o555)
        #expect(tree.entries["locked/inside.txt"]?.contents == Data("x".utf8))
    }

    /// A tar of regular files `name: contents` in `directory`, as `tree.tar`.
    static func archive(of files: [String: String], in directory: TemporaryDirectory) throws -> URL {
        let url = directory.appending("tree.tar")
        let tree = FileWrapper(directoryWithFileWrappers: files.mapValues { FileWrapper(regularFileWithContents: Data($0.utf8)) })
        try ArchiveWriter.write(tree, to: url, options: ArchiveWriteOptions(format: .tar))
        return url
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
