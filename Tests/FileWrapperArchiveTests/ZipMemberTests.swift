@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Small zip members reach the unpack's workers as they are stored:
/// ``ZipDirectory`` finds them through the central directory (zip64 too)
/// and only where the local header leads exactly to the entry's data, and
/// the worker inflates them and checks what libarchive would check, so a
/// damaged member is refused naming the archive and the entry, leaving
/// nothing behind.
@Suite(.startsProcesses) struct ZipMemberTests {
    static let largest = FileWorkers.largeFile

    static func text(_ count: Int, seed: Int) -> [UInt8] {
        let words = Array("lorem ipsum dolor sit amet \(seed) consectetur adipiscing elit\n".utf8)
        return [UInt8](count: count) { words[($0 &* 7 / 5 &+ seed) % words.count] }
    }

    static func noise(_ count: Int, seed: Int) -> [UInt8] {
        [UInt8](count: count) { UInt8(truncatingIfNeeded: ($0 &+ seed &* 977) &* 2_654_435_761 >> 13) }
    }

    /// Opens `url` as libarchive's reader would see it, for ``ZipDirectory``.
    static func withSource<Result>(_ url: URL, _ body: (ArchiveReadSource) throws -> Result) throws -> Result {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        return try body(ArchiveReadSource(fd: fd, name: url.path))
    }

    static func members() -> [ZipBuilder.Member] {
        [
            ZipBuilder.Member(name: "deflated.txt", contents: text(5000, seed: 1)),
            ZipBuilder.Member(name: "stored.bin", contents: noise(700, seed: 2), method: 0),
            ZipBuilder.Member(name: "empty.txt", contents: []),
            ZipBuilder.Member(name: "largest.txt", contents: text(largest, seed: 3)),
            ZipBuilder.Member(name: "larger.txt", contents: text(largest + 1, seed: 4)),
            ZipBuilder.Member(name: "zip64.txt", contents: text(3000, seed: 5), zip64: true),
        ]
    }

    @Test(arguments: [false, true])
    func theDirectoryGivesEachSmallMemberWhereItsDataBegins(zip64End: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("members.zip")
        let builder = ZipBuilder(members: Self.members(), zip64End: zip64End)
        let placements = try builder.write(to: url, scratch: directory.url)

        try Self.withSource(url) { source in
            let zip = try #require(ZipDirectory(source: source, maxEntries: 100, maxSize: Self.largest))
            for member in builder.members {
                let placement = try #require(placements[member.name])
                let found = zip.member(dataOffset: placement.dataOffset, size: Int64(member.contents.count))
                // A large stored member is left to libarchive; a large
                // deflated one an unpack inflates itself, streaming.
                if member.contents.count > Self.largest, member.method == 0 {
                    #expect(found == nil, "\(member.name) is left to libarchive")
                    continue
                }
                let expected = ZipMember(offset: placement.dataOffset, compressedSize: placement.compressedSize, size: member.contents.count,
                                         crc: placement.crc, method: member.method == 0 ? .stored : .deflated)
                #expect(found == expected, "\(member.name)")
                // Only where the local header ends, and only with the size libarchive read.
                #expect(zip.member(dataOffset: placement.dataOffset + 1, size: Int64(member.contents.count)) == nil)
                #expect(zip.member(dataOffset: placement.dataOffset, size: Int64(member.contents.count) + 1) == nil)
            }
        }
    }

    @Test func aDirectoryOfMoreEntriesThanTheLimitIsNotRead() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("members.zip")
        try ZipBuilder(members: Self.members()).write(to: url, scratch: directory.url)
        try Self.withSource(url) { source in
            #expect(ZipDirectory(source: source, maxEntries: Self.members().count - 1, maxSize: Self.largest) == nil)
        }
    }

    /// A record pointing where there is no local header: the data is not
    /// where the record leads, so libarchive reads that member.
    @Test func aRecordWhoseLocalHeaderIsElsewhereFindsNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("members.zip")
        var members = Self.members()
        members[1].localHeaderOffset = 1
        let placements = try ZipBuilder(members: members).write(to: url, scratch: directory.url)
        try Self.withSource(url) { source in
            let zip = try #require(ZipDirectory(source: source, maxEntries: 100, maxSize: Self.largest))
            #expect(zip.member(dataOffset: try #require(placements["stored.bin"]).dataOffset, size: 700) == nil)
            #expect(zip.member(dataOffset: try #require(placements["zip64.txt"]).dataOffset, size: 3000) != nil)
        }
    }

    /// An archive whose offsets do not count the bytes before it (a
    /// self-extracting stub): its offsets are corrected as libarchive
    /// corrects them (``ZipCentralDirectory``), so every member is found
    /// where libarchive finds its data.
    @Test func offsetsAreCorrectedForBytesBeforeTheZip() throws {
        let directory = try TemporaryDirectory()
        let prefixed = directory.appending("prefixed.zip")
        let placements = try ZipBuilder(members: Self.members(), prefix: 100).write(to: prefixed, scratch: directory.url)
        try Self.withSource(prefixed) { source in
            let zip = try #require(ZipDirectory(source: source, maxEntries: 100, maxSize: Self.largest))
            for member in Self.members() {
                let placement = try #require(placements[member.name])
                let found = zip.member(dataOffset: placement.dataOffset, size: Int64(member.contents.count))
                // Each member here is small or deflated, so each is found, as without a stub.
                #expect(found?.offset == placement.dataOffset, "\(member.name)")
                #expect(zip.member(dataOffset: placement.dataOffset - 100, size: Int64(member.contents.count)) == nil, "\(member.name)")
            }
        }
    }

    @Test func membersUnpackExactly() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("members.zip")
        let members = Self.members() + (0..<300).map { index in
            ZipBuilder.Member(name: "many/\(index).txt", contents: index % 3 == 0 ? Self.noise(index * 37, seed: index) : Self.text(index * 53, seed: index),
                              method: index % 3 == 0 ? 0 : 8, zip64: index % 5 == 0)
        }
        try ZipBuilder(members: members).write(to: url, scratch: directory.url)

        try ArchiveUnpacker.unpack(archiveAt: url, to: directory.appending("out"))
        for member in members {
            let contents = try Data(contentsOf: directory.appending("out/\(member.name)"))
            #expect(contents == Data(member.contents), "\(member.name)")
        }
    }

    /// Each damage, in one member of `size` bytes among good ones, and what
    /// the worker (a small member) or the reading thread (a large deflated
    /// one, inflated streaming) says.
    static func damages(size: Int) -> [(String, @Sendable (inout ZipBuilder.Member) -> Void, String)] {
        [
            ("wrong CRC", { $0.crc = 0x1234_5678 }, "the contents' CRC-32 is 0x"),
            ("wrong CRC, stored", { $0.method = 0; $0.crc = 0x1234_5678 }, "the archive gives 0x12345678"),
            ("size too large", { $0.size = size + 10 }, "the data expands to \(size) bytes, not the \(size + 10) that the archive gives"),
            ("size too small", { $0.size = size - 10 }, "the data expands to more than the \(size - 10) bytes that the archive gives"),
            ("bytes after the stream", { $0.trailing = 3 }, "the deflate stream ends 3 bytes before the compressed data does"),
            ("stream cut short", { $0.cut = 2 }, "the compressed data ends before its deflate stream does"),
            ("not deflate", { $0.damaged = true }, "the compressed data is damaged"),
        ]
    }

    /// A small member, and a large one (a stored large one is libarchive's).
    @Test(arguments: damages(size: 0).indices, [5000, largest * 3])
    func aDamagedMemberIsRefusedNamingItAndNothingIsLeft(damage: Int, size: Int) throws {
        let (name, change, message) = Self.damages(size: size)[damage]
        guard size <= Self.largest || !name.hasSuffix("stored") else { return }
        let directory = try TemporaryDirectory()
        let url = directory.appending("damaged.zip")
        var members = (0..<40).map { ZipBuilder.Member(name: "good/\($0).txt", contents: Self.text(1000 + $0, seed: $0)) }
        var bad = ZipBuilder.Member(name: "bad.txt", contents: Self.text(size, seed: 99))
        change(&bad)
        members.insert(bad, at: 20)
        try ZipBuilder(members: members).write(to: url, scratch: directory.url)

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: url, to: directory.appending("out"))
        }
        #expect(error.code == .corrupt)
        #expect(error.archive == url.path)
        #expect(error.entry == "bad.txt")
        #expect(error.message.contains(message), "\(error)")
        #expect(try Disk.names(in: directory.url) == ["damaged.zip"], "the destination and the temporary are gone")
    }

    /// Members handed to workers count against the byte and ratio limits
    /// as they are handed over, with the archive read through their data.
    @Test(arguments: [ArchiveReadLimits.Limit.maxRatio, .maxBytes])
    func membersHandedToWorkersCountAgainstTheLimits(limit: ArchiveReadLimits.Limit) throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("zeros.zip")
        // 100 KiB of zeros deflate to about 100 bytes.
        let members = (0..<50).map { ZipBuilder.Member(name: "zeros/\($0).bin", contents: [UInt8](repeating: 0, count: 100 << 10)) }
        try ZipBuilder(members: members).write(to: url, scratch: directory.url)
        var options = ArchiveUnpackOptions()
        options.limits.ratioGraceBytes = 0
        if limit == .maxBytes {
            options.limits.maxRatio = .infinity
            options.limits.maxBytes = 2 << 20
        }

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: url, to: directory.appending("out"), options: options)
        }
        #expect(error.code == .limitExceeded)
        #expect(error.limit == limit, "\(error)")
        #expect(try Disk.names(in: directory.url) == ["zeros.zip"])
    }
}
