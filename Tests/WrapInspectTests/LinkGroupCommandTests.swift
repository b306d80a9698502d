import Foundation
import Glibc
import Testing
import TestSupport

/// A GNU cpio `newc` archive stores a hard-link group's contents with its
/// last member and the earlier ones empty: `cat`, `digest`, `dump`, `diff`
/// and `unpack` give every member the contents, as bsdtar extracts them.
@Suite("wrapinspect and hard-link groups")
struct LinkGroupCommandTests {
    /// The sample with `index.json` at two more names, in `linked.cpio`, and
    /// bsdtar's extraction of it in `extracted`.
    static func linkedArchive() throws -> SampleJournal {
        let journal = try SampleJournal()
        try DigestTests.shell("""
            cd Travel.journal && ln index.json Media/index-copy.json && ln index.json index-again.json \
            && find . -mindepth 1 -printf '%P\\n' | LC_ALL=C sort | cpio --quiet -o -H newc > ../linked.cpio \
            && mkdir ../extracted && cd ../extracted && bsdtar -xf ../linked.cpio
            """, in: journal.directory)
        return journal
    }

    static let members = ["index.json", "Media/index-copy.json", "index-again.json"]

    @Test func catPrintsTheContentsForEveryMember() throws {
        let journal = try Self.linkedArchive()
        let contents = Array(try Data(contentsOf: journal.url("index.json")))
        for member in Self.members {
            let result = try WrapInspectProcess.run(["cat", "linked.cpio", member], in: journal.directory)
            #expect(result.status == 0, "\(result.stderr)")
            let same = result.stdoutBytes == contents
            #expect(same, "\(member): \(result.stdoutBytes.count) bytes, expected \(contents.count)")
        }
    }

    @Test func digestAndDiffSeeTheTreeBsdtarExtracts() throws {
        let journal = try Self.linkedArchive()
        #expect(try DigestTests.digest("linked.cpio", in: journal.directory) == DigestTests.digest("extracted", in: journal.directory))
        let diff = try WrapInspectProcess.run(["diff", "linked.cpio", "extracted"], in: journal.directory)
        #expect(diff.status == 0, "\(diff.stdout)\(diff.stderr)")
    }

    /// The tree shows each member with the contents' size and SHA-256; the
    /// stored listing shows them on the link that carries them, the last.
    @Test func dumpShowsTheContentsOnEveryMember() throws {
        let journal = try Self.linkedArchive()
        let size = try Data(contentsOf: journal.url("index.json")).count
        let sum = try Disk.run("/bin/sh", ["-c", "sha256sum '\(journal.url("index.json").path)' > '\(journal.directory.path)/sum'"])
        try #require(sum.status == 0)
        let digest = try #require(String(decoding: Data(contentsOf: journal.directory.appendingPathComponent("sum")), as: UTF8.self)
            .split(separator: " ").first)

        let tree = try WrapInspectProcess.run(["dump", "--digests", "linked.cpio"], in: journal.directory)
        #expect(tree.status == 0, "\(tree.stderr)")
        for name in ["index.json", "index-copy.json", "index-again.json"] {
            let line = tree.stdoutLines.first { $0.contains(" \(name)") }
            #expect(line?.contains("\(size) B  \(digest)") == true, "\(name): \(line ?? "no line")")
        }

        let stored = try WrapInspectProcess.run(["dump", "--stored", "--digests", "linked.cpio"], in: journal.directory)
        #expect(stored.status == 0, "\(stored.stderr)")
        let carrying = stored.stdoutLines.filter { $0.contains(digest) }
        #expect(carrying.count == 1, "\(stored.stdout)")
        #expect(carrying.first?.contains(" \(size)  \(digest)  ") == true && carrying.first?.contains(" => ") == true, "\(stored.stdout)")
    }

    @Test func unpackMakesOneFileWithTheContents() throws {
        let journal = try Self.linkedArchive()
        let result = try WrapInspectProcess.run(["unpack", "linked.cpio", "unpacked"], in: journal.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let unpacked = journal.directory.appendingPathComponent("unpacked")
        let extracted = journal.directory.appendingPathComponent("extracted")
        #expect(try DiskTree(unpacked, directoryTimes: false) == DiskTree(extracted, directoryTimes: false))
        let inodes = Set(Self.members.map { Disk.inode(unpacked.appendingPathComponent($0)) })
        #expect(inodes.count == 1)
        #expect(Disk.linkCount(unpacked.appendingPathComponent("index.json")) == Disk.linkCount(extracted.appendingPathComponent("index.json")))
        #expect(Disk.linkCount(unpacked.appendingPathComponent("index.json")) == 3)
    }
}
