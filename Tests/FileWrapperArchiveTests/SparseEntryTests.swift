import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Issue 33: a GNU sparse file that is all hole came out empty, with exit
/// status 0, because libarchive 3.6.2 gives no bytes for it; every reader
/// now holds an entry's bytes to the size its header declares. The sparse
/// archives are written by GNU tar (`--sparse`, in its own format and in
/// pax), as bsdtar, GNU tar, Go and Python read them: the holes as zeros.
@Suite(.startsProcesses) struct SparseEntryTests {
    /// A sparse file of GNU tar's: `size` bytes, holding `data` at `offset`
    /// (none when `data` is empty), archived in `format`.
    struct Sparse: Sendable, CustomTestStringConvertible {
        var format: String
        var size: Int
        var data: [UInt8] = []
        var offset = 0

        var testDescription: String { "\(format), \(size) bytes, \(data.count) of data at \(offset)" }

        /// The file's bytes, as every reader must give them.
        var contents: [UInt8] {
            var bytes = [UInt8](repeating: 0, count: size)
            bytes.replaceSubrange(offset..<(offset + data.count), with: data)
            return bytes
        }

        /// Writes the file as `disk.img` in `directory`, with its holes as
        /// holes, and archives it with GNU tar into `hole.tar`.
        func archive(in directory: TemporaryDirectory) throws -> URL {
            let file = directory.appending("disk.img")
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
            let handle = try FileHandle(forWritingTo: file)
            if !data.isEmpty {
                try handle.seek(toOffset: UInt64(offset))
                try handle.write(contentsOf: Data(data))
            }
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
            try Interop.run("tar", ["--sparse", "--format=\(format)", "-cf", "hole.tar", "disk.img"], in: directory.url)
            return directory.appending("hole.tar")
        }
    }

    static let sparseFiles: [Sparse] = [
        Sparse(format: "gnu", size: 1_000_000),
        Sparse(format: "pax", size: 1_000_000),
        Sparse(format: "gnu", size: 300_000, data: Array("abc".utf8), offset: 1_000),
        Sparse(format: "pax", size: 300_000, data: [UInt8](repeating: 7, count: 70_000), offset: 200_000),
    ]

    @Test(arguments: sparseFiles)
    func everyReaderGivesTheHolesAsZeros(_ sparse: Sparse) throws {
        let directory = try TemporaryDirectory()
        let archive = try sparse.archive(in: directory)
        // Compared by digest: `#expect` would describe two megabytes that
        // differ by diffing them, which takes minutes.
        let expected = SHA256Digest.of(sparse.contents)

        let unpacked = directory.appending("unpacked")
        try ArchiveUnpacker.unpack(archiveAt: archive, to: unpacked)
        #expect(SHA256Digest.of(Array(try Data(contentsOf: unpacked.appendingPathComponent("disk.img")))) == expected, "unpack")

        let tree = try ArchiveReader.fileWrapper(contentsOf: archive)
        #expect(tree.fileWrappers?["disk.img"]?.regularFileContents.map { SHA256Digest.of(Array($0)) } == expected, "in memory")

        let entry = try Manifest(archiveAt: archive).entries.first { $0.path == Array("disk.img".utf8) }
        #expect(entry?.size == Int64(sparse.size))
        #expect(entry?.contentDigest == expected, "manifest")

        var member: [UInt8] = []
        try MemberContents.forEachBlock(ofMember: "disk.img", in: archive) { member += $0 }
        #expect(SHA256Digest.of(member) == expected, "member")
    }

    /// An entry that gives more bytes than its header declares is refused,
    /// not cut or passed on: a GNU sparse header (type `S`) whose map holds
    /// 512 bytes of a file it says is 100 bytes long.
    @Test func anEntryLongerThanItsDeclaredSizeIsRefused() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("over.tar")
        try Self.gnuSparse(name: "over.img", realSize: 100, map: [(0, 512)], data: [UInt8](repeating: 0x41, count: 512))
            .write(to: archive)
        let member: (name: String, read: @Sendable (URL, URL) throws -> Void) = (
            "member", { archive, _ in try MemberContents.forEachBlock(ofMember: "over.img", in: archive) { _ in } }
        )
        // "entries unchecked" reads no contents, so has none to hold to a size.
        let readers = HardeningTests.readers.filter { !["member", "entries unchecked"].contains($0.name) } + [member]
        for reader in readers {
            let error = #expect(throws: ArchiveError.self, "\(reader.name)") { try reader.read(archive, directory.url) }
            #expect(error?.entry == "over.img", "\(reader.name)")
            #expect(error?.message.contains("more than the 100 bytes its header declares") == true, "\(reader.name): \(String(describing: error))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("unpacked") } == [])
    }

    /// A tar of one old-style GNU sparse entry (type `S`, the map in the
    /// header), then the archive's end.
    static func gnuSparse(name: String, realSize: Int, map: [(offset: Int, count: Int)], data: [UInt8]) -> Data {
        var block = [UInt8](repeating: 0, count: 512)
        func octal(_ value: Int, at offset: Int, width: Int) {
            let digits = Array(String(value, radix: 8).utf8)
            block.replaceSubrange(offset..<(offset + width - 1), with: [UInt8](repeating: 0x30, count: width - 1 - digits.count) + digits)
        }
        block.replaceSubrange(0..<name.utf8.count, with: name.utf8)
        octal(0o644, at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        octal(data.count, at: 124, width: 12)
        octal(0, at: 136, width: 12)
        block[156] = UInt8(ascii: "S")
        block.replaceSubrange(257..<265, with: Array("ustar  \u{0}".utf8))
        for (index, piece) in map.enumerated() {
            octal(piece.offset, at: 386 + 24 * index, width: 12)
            octal(piece.count, at: 398 + 24 * index, width: 12)
        }
        octal(realSize, at: 483, width: 12)
        block.replaceSubrange(148..<156, with: [UInt8](repeating: 0x20, count: 8))
        octal(block.reduce(0) { $0 + Int($1) }, at: 148, width: 7)
        let padding = (512 - data.count % 512) % 512
        return Data(block + data + [UInt8](repeating: 0, count: padding + 1024))
    }
}
