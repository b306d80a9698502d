@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Our pax tar writer: the data of a large file in an uncompressed tar
/// starts on a page boundary, extended records hold what ustar's fields
/// cannot, and other readers (Python's tarfile, GNU tar) read it all.
@Suite(.startsProcesses) struct TarWriterTests {
    /// `ARCHIVE OUT`: writes a line per member to OUT: its name, where its
    /// data starts, its size, and whether its extended header has a comment.
    /// A .zst archive is decompressed first (the tarfile of Python 3.11 reads
    /// no zstd).
    static let tarfileLayout = """
        import io, subprocess, sys, tarfile
        archive = sys.argv[1]
        if archive.endswith(".zst"):
            archive = io.BytesIO(subprocess.run(["zstd", "-dc", archive], check=True, capture_output=True).stdout)
            tar = tarfile.open(fileobj=archive)
        else:
            tar = tarfile.open(archive)
        with tar, open(sys.argv[2], "w") as out:
            for m in tar:
                out.write(f"{m.name}\\t{m.offset_data}\\t{m.size}\\t{'comment' in m.pax_headers}\\n")
        """

    /// Each member as Python's tarfile sees it.
    struct Member: Equatable {
        var dataOffset: Int
        var size: Int
        var hasComment: Bool
    }

    static func layout(of archive: URL, in directory: TemporaryDirectory) throws -> [String: Member] {
        let out = directory.appending("layout.txt")
        let result = try Disk.run("/usr/bin/env", ["python3", "-c", tarfileLayout, archive.path, out.path])
        try #require(result.status == 0, "\(result.stderr)")
        var members: [String: Member] = [:]
        for line in try String(contentsOf: out, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            members[fields[0]] = Member(dataOffset: Int(fields[1])!, size: Int(fields[2])!, hasComment: fields[3] == "True")
        }
        return members
    }

    /// Files on both sides of the size that is aligned, behind headers of
    /// different lengths (long and non-ASCII names need extended records).
    static let sizes: [String: Int] = [
        "empty": 0,
        "small.txt": 700,
        "at-the-limit.bin": TarWriter.alignedSize,
        "just-over.bin": TarWriter.alignedSize + 1,
        String(repeating: "long-folder/", count: 12) + "large.bin": 300_001,
        "ünïcode/large.bin": 1 << 20,
        "sub/odd-size.bin": (2 << 20) + 3,
    ]

    static func writeSource(at source: URL) throws {
        for (path, size) in sizes {
            try Disk.write(Data(StoredCopyTests.large(size, seed: path.utf8.count)), to: source.appendingPathComponent(path))
        }
    }

    @Test func largeFilesOfAnUncompressedTarStartOnPageBoundaries() throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        try Self.writeSource(at: source)
        let archive = directory.appending("out.tar")
        try ArchiveWriter.write(contentsOf: source, to: archive, options: ArchiveWriteOptions(format: .tar))

        let members = try Self.layout(of: archive, in: directory)
        for (path, size) in Self.sizes {
            let member = try #require(members[path], "\(path) is in the archive")
            #expect(member.size == size)
            if size > TarWriter.alignedSize {
                #expect(member.dataOffset % TarWriter.alignment == 0, "\(path) starts at \(member.dataOffset)")
            } else {
                #expect(!member.hasComment, "\(path) is not padded")
            }
        }
        // Padding is only where it was needed, and every byte is still there.
        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        let unpacked = try DiskTree(directory.appending("out"))
        for (path, size) in Self.sizes {
            #expect(unpacked.entries[path]?.contents == Data(StoredCopyTests.large(size, seed: path.utf8.count)), "\(path)")
        }
    }

    @Test(arguments: [ArchiveFormat.tarGzip, .tarZstd])
    func aCompressedTarIsNotPadded(format: ArchiveFormat) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        try Self.writeSource(at: source)
        let archive = directory.appending("out.\(format.fileExtension)")
        try ArchiveWriter.write(contentsOf: source, to: archive, options: ArchiveWriteOptions(format: format))
        let members = try Self.layout(of: archive, in: directory)
        #expect(members.count == Self.sizes.count + 15)  // their 14 folders and the root's own "./"
        #expect(members.values.allSatisfy { !$0.hasComment })
    }

    /// Every block offset, behind no extended records and behind records
    /// that end just before, at and after a block's end.
    @Test(arguments: [0, 1, 400, 490, 500, 1000])
    func theDataOfAnAlignedMemberStartsOnTheBoundary(pathLength: Int) throws {
        let path = pathLength == 0 ? "file" : String(repeating: "é", count: pathLength / 2)
        let header = Self.header(path: path, size: 1 << 20)
        for offset in stride(from: 0, to: 2 * TarWriter.alignment, by: TarBlock.size) {
            let blocks = TarHeader.blocks(for: header, at: UInt64(offset), aligningTo: TarWriter.alignment)
            #expect(blocks.count % TarBlock.size == 0)
            #expect((offset + blocks.count) % TarWriter.alignment == 0, "at \(offset)")
            let unpadded = TarHeader.blocks(for: header, at: UInt64(offset))
            #expect(blocks.count - unpadded.count <= TarWriter.alignment + TarBlock.size)
        }
    }

    @Test func recordsCountTheirOwnLength() {
        for count in 0..<1200 {
            let record = PaxRecord.encoded("path", [UInt8](repeating: UInt8(ascii: "a"), count: count))
            let length = record.prefix { $0 != UInt8(ascii: " ") }
            #expect(Int(String(decoding: length, as: UTF8.self)) == record.count, "a value of \(count) bytes")
            #expect(record.last == UInt8(ascii: "\n"))
        }
    }

    @Test(arguments: [
        (FileTimestamp(seconds: 0), "0"),
        (FileTimestamp(seconds: 1, nanoseconds: 500_000_000), "1.5"),
        (FileTimestamp(seconds: 1_577_836_800, nanoseconds: 123_456_789), "1577836800.123456789"),
        (FileTimestamp(seconds: -2, nanoseconds: 500_000_000), "-1.5"),
        (FileTimestamp(seconds: -1, nanoseconds: 1), "-0.999999999"),
        (FileTimestamp(seconds: -86_400), "-86400"),
    ])
    func timesAreWrittenAsPaxDecimals(time: FileTimestamp, text: String) {
        #expect(PaxRecord.text(time) == text)
    }

    /// What ustar's octal fields cannot hold goes in extended records, and
    /// a path that fits ustar's prefix and name fields needs none.
    @Test func extendedRecordsHoldWhatUstarCannot() {
        var header = Self.header(path: "big.bin", size: 1 << 33)
        header.owner = FileOwner(userID: 1 << 22, groupID: 5)
        let records = Self.extendedRecords(TarHeader.blocks(for: header, at: 0))
        #expect(records == ["size=8589934592", "uid=4194304"])

        let split = String(repeating: "folder/", count: 20) + "file.txt"  // 148 bytes
        let blocks = TarHeader.blocks(for: Self.header(path: split, size: 1), at: 0)
        #expect(blocks.count == TarBlock.size)
        #expect(String(decoding: blocks[345..<(345 + 139)], as: UTF8.self) == String(split.dropLast(9)))
        #expect(String(decoding: blocks[0..<8], as: UTF8.self) == "file.txt")
    }

    /// Times before 1970, with and without a fraction, come back through
    /// our reader, written as POSIX and GNU tar write them (`-1.5`; see
    /// ``PaxRecord/text(_:)``).
    @Test func timesBefore1970ComeBack() throws {
        let times = [FileTimestamp(seconds: -2, nanoseconds: 500_000_000), FileTimestamp(seconds: -86_400)]
        let root = FileWrapper(directoryWithFileWrappers: [:])
        for (index, time) in times.enumerated() {
            let file = FileWrapper(regularFileWithContents: Data("\(index)".utf8))
            file.preferredFilename = "\(index).txt"
            file.attributes.modificationDate = time
            root.addFileWrapper(file)
        }
        let data = try ArchiveWriter.data(for: root, options: ArchiveWriteOptions(format: .tar))
        let read = try ArchiveReader.fileWrapper(from: data, name: "times.tar")
        for (index, time) in times.enumerated() {
            #expect(read.fileWrappers?["\(index).txt"]?.attributes.modificationDate == time)
        }
    }

    static func header(path: String, size: Int) -> ArchiveEntryHeader {
        ArchiveEntryHeader(
            path: path, kind: .regularFile, permissions: 0o644, size: size,
            modified: FileTimestamp(seconds: 1_700_000_000), owner: nil, linkTarget: nil)
    }

    /// The `KEY=VALUE` records of the extended header that starts `blocks`.
    static func extendedRecords(_ blocks: [UInt8]) -> [String] {
        guard blocks[156] == UInt8(ascii: "x") else { return [] }
        let size = Int(String(decoding: blocks[124..<135], as: UTF8.self), radix: 8)!
        let text = String(decoding: blocks[512..<(512 + size)], as: UTF8.self)
        return text.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1)[1] }.map(String.init)
    }
}
