@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// A zip whose members are compressed with bzip2, LZMA, zstd, xz or PPMd
/// is read lazily too (``ZipContainer/fileWrapper(contentsOf:limits:)``):
/// opening reads the central directory only, a member is read on first use,
/// alone, decoded by libarchive's streaming zip reader over that member's
/// bytes, and checked (size, CRC-32, the archive unchanged); a member of a
/// method libarchive does not decode still makes the zip refused. And a
/// self-extracting zip64, with its offsets corrected or not, reads lazily.
@Suite(.startsProcesses) struct ZipLazyMethodTests {
    /// A program that writes zips with other methods than store and deflate.
    enum Tool: String, CaseIterable, CustomTestStringConvertible {
        case pythonBzip2, pythonLZMA, infoZipBzip2, sevenZipBzip2, sevenZipLZMA, sevenZipXZ, sevenZipPPMd, zstdCrafted

        /// The method it compresses the files with.
        var method: Int {
            switch self {
            case .pythonBzip2, .infoZipBzip2, .sevenZipBzip2: 12
            case .pythonLZMA, .sevenZipLZMA: 14
            case .sevenZipXZ: 95
            case .sevenZipPPMd: 98
            case .zstdCrafted: 93
            }
        }

        var testDescription: String { rawValue }
    }

    /// The files every fixture holds: text that compresses, noise that does
    /// not (large enough that the zip is much larger than what opening
    /// reads), and an empty file.
    static func files(seed: UInt64) -> [(path: String, contents: [UInt8])] {
        var random = SplitMix64(seed: seed)
        let words = Array("alpha beta gamma delta epsilon zeta eta theta iota kappa\n".utf8)
        var text: [UInt8] = []
        while text.count < 48_000 { text += words.shuffled(using: &random).prefix(Int(random.next() % 9) + 3) }
        return [("text.txt", text), ("sub/noise.bin", random.bytes(128 << 10)), ("empty", [])]
    }

    /// Writes `files` below `directory`/src, which it returns.
    static func writeSources(_ files: [(path: String, contents: [UInt8])], in directory: TemporaryDirectory) throws -> URL {
        let source = directory.appending("src")
        for (path, contents) in files {
            let url = source.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents).write(to: url)
        }
        return source
    }

    /// Writes `files` below `directory`/src and has `tool` zip them.
    static func zip(_ files: [(path: String, contents: [UInt8])], with tool: Tool, in directory: TemporaryDirectory) throws -> URL {
        let source = try writeSources(files, in: directory)
        let zip = directory.appending("methods.zip")
        let paths = files.map(\.path)
        switch tool {
        case .pythonBzip2, .pythonLZMA:
            let method = tool == .pythonBzip2 ? "ZIP_BZIP2" : "ZIP_LZMA"
            try Interop.run("python3", ["-c", """
                import sys, zipfile
                with zipfile.ZipFile(sys.argv[1], "w", zipfile.\(method)) as z:
                    for path in sys.argv[2:]:
                        z.write(path)
                """, zip.path] + paths, in: source)
        case .infoZipBzip2:
            try Interop.run("zip", ["-q", "-X", "-Z", "bzip2", zip.path] + paths, in: source)
        case .sevenZipBzip2, .sevenZipLZMA, .sevenZipXZ, .sevenZipPPMd:
            let method = ["sevenZipBzip2": "BZip2", "sevenZipLZMA": "LZMA", "sevenZipXZ": "XZ", "sevenZipPPMd": "PPMd"][tool.rawValue]!
            try Interop.run("7z", ["a", "-bd", "-tzip", "-mm=\(method)", zip.path] + paths, in: source)
        case .zstdCrafted:
            try Interop.run("python3", ["-c", Self.zstdZip, zip.path] + paths, in: source)
        }
        return zip
    }

    /// `OUT FILE...`: a zip of the files, each compressed by the `zstd`
    /// tool (method 93), made by hand, since no tool here writes one
    /// (Python 3.11's zipfile, Info-ZIP zip 3.0, bsdtar 3.6.2 and 7-Zip
    /// 26.02 do not).
    static let zstdZip = """
        import struct, subprocess, sys, zlib
        body, central = bytearray(), bytearray()
        for path in sys.argv[2:]:
            data = open(path, "rb").read()
            packed = subprocess.run(["zstd", "-q", "-c", "-19"], input=data, capture_output=True, check=True).stdout
            name, crc = path.encode(), zlib.crc32(data)
            central += struct.pack("<IHHHHIIIIHHHHHII", 0x02014B50, 0x033F, 63, 0, 93, 0, crc, len(packed), len(data),
                                   len(name), 0, 0, 0, 0, 0o100644 << 16, len(body)) + name
            body += struct.pack("<IHHHIIIIHH", 0x04034B50, 63, 0, 93, 0, crc, len(packed), len(data), len(name), 0) + name + packed
        count = len(sys.argv) - 2
        end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(central), len(body), 0)
        open(sys.argv[1], "wb").write(body + central + end)
        """

    /// A member as the zip's central directory lists it, read here byte by
    /// byte: its method, its compressed size, and where its central record
    /// and its local header begin.
    struct Listed {
        var method: Int
        var compressedSize: Int
        var central: Int
        var local: Int
    }

    /// The members of the zip `bytes` (with a classic end record), by name.
    static func listing(_ bytes: [UInt8]) throws -> [[UInt8]: Listed] {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let end = try #require((0...(bytes.count - 22)).reversed().first { u32($0) == 0x0605_4B50 })
        var members: [[UInt8]: Listed] = [:]
        var at = u32(end + 16)
        for _ in 0..<u16(end + 10) {
            let (name, extra, comment) = (u16(at + 28), u16(at + 30), u16(at + 32))
            members[Array(bytes[(at + 46)..<(at + 46 + name)])] = Listed(method: u16(at + 10), compressedSize: u32(at + 20), central: at, local: u32(at + 42))
            at += 46 + name + extra + comment
        }
        return members
    }

    static func listing(_ zip: URL) throws -> [[UInt8]: Listed] {
        try listing(Array(Data(contentsOf: zip)))
    }

    /// How ``patch(_:_:member:)`` changes a member, in its local header and
    /// its central record alike.
    enum Patch {
        /// One bit of the CRC-32 flipped.
        case crc
        /// The size declared.
        case size(UInt32)
        /// The byte in the middle of the compressed data inverted.
        case damage
    }

    /// Changes the member `member` of the zip at `zip` in place.
    static func patch(_ zip: URL, _ patch: Patch, member: String) throws {
        var bytes = Array(try Data(contentsOf: zip))
        let listed = try #require(try listing(bytes)[Array(member.utf8)])
        switch patch {
        case .crc:
            bytes[listed.central + 16] ^= 1
            bytes[listed.local + 14] ^= 1
        case .size(let size):
            for field in [listed.central + 24, listed.local + 22] {
                withUnsafeBytes(of: size.littleEndian) { bytes.replaceSubrange(field..<(field + 4), with: $0) }
            }
        case .damage:
            let header = 30 + Int(bytes[listed.local + 26]) + Int(bytes[listed.local + 27]) << 8
                + Int(bytes[listed.local + 28]) + Int(bytes[listed.local + 29]) << 8
            bytes[listed.local + header + listed.compressedSize / 2] ^= 0xFF
        }
        try Data(bytes).write(to: zip)
    }

    @Test(arguments: Tool.allCases)
    func everyMemberReadsLazilyAloneAndAsWritten(tool: Tool) throws {
        let directory = try TemporaryDirectory()
        let files = Self.files(seed: 93)
        let zip = try Self.zip(files, with: tool, in: directory)
        let listed = try #require(try Self.listing(zip)[Array("text.txt".utf8)])
        // 7-Zip stores what does not compress (the noise, the empty file).
        #expect(listed.method == tool.method)
        let archiveSize = try #require(try FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? Int)
        try #require(archiveSize > 128 << 10)

        let (root, opened) = try ThreadIO.bytesRead { try ZipContainer.fileWrapper(contentsOf: zip) }
        // The last 64 KiB + 22 bytes, the first 64, the directory, and this thread's read of its own counters.
        #expect(opened < 70_000, "opening read \(opened) bytes of a \(archiveSize)-byte zip")
        for (path, contents) in files {
            let file = try ZipContainerReadTests.wrapper(at: path, in: root)
            #expect(file.regularFileSize == contents.count && !file.isRegularFileContentsLoaded)
        }

        // A member reads its own bytes: its local header and compressed data.
        let text = try ZipContainerReadTests.wrapper(at: "text.txt", in: root)
        let compressedSize = listed.compressedSize
        let (contents, read) = try ThreadIO.bytesRead { try text.readRegularFileContents() }
        #expect(Array(contents) == files[0].contents)
        #expect(read >= compressedSize && read < compressedSize + 4096, "reading a member of \(compressedSize) compressed bytes read \(read)")
        let noise = try ZipContainerReadTests.wrapper(at: "sub/noise.bin", in: root)
        #expect(!noise.isRegularFileContentsLoaded)

        // Streamed in blocks of the size asked for, without being kept.
        let again = try ZipContainer.fileWrapper(contentsOf: zip)
        let streamedText = try ZipContainerReadTests.wrapper(at: "text.txt", in: again)
        var streamed: [UInt8] = []
        try streamedText.forEachContentsBlock(blockSize: 5000) { block in
            #expect(block.count <= 5000)
            streamed += block
        }
        #expect(streamed == files[0].contents && !streamedText.isRegularFileContentsLoaded)
        #expect(Array(try noise.readRegularFileContents()) == files[1].contents)
        #expect(try ZipContainerReadTests.wrapper(at: "empty", in: root).readRegularFileContents().isEmpty)
    }

    /// A member whose compressed data has a byte inverted, or whose CRC-32
    /// is wrong (in its local header and central record alike), fails
    /// naming the archive and the member, never giving its bytes; the
    /// other members read on.
    @Test(arguments: Tool.allCases)
    func aDamagedMemberOrAWrongCRCIsAnErrorNamingArchiveAndMember(tool: Tool) throws {
        let directory = try TemporaryDirectory()
        let files = Self.files(seed: 12)
        let damaged = try Self.zip(files, with: tool, in: directory)
        let wrongCRC = directory.appending("crc.zip")
        try FileManager.default.copyItem(at: damaged, to: wrongCRC)
        try Self.patch(damaged, .damage, member: "text.txt")
        try Self.patch(wrongCRC, .crc, member: "text.txt")
        for (zip, expected) in [(damaged, ""), (wrongCRC, ": the contents' CRC-32 is")] {
            let root = try ZipContainer.fileWrapper(contentsOf: zip)
            let text = try ZipContainerReadTests.wrapper(at: "text.txt", in: root)
            let error = try #require(throws: FileWrapperError.self) { try text.readRegularFileContents() }
            #expect(error.path == zip.path && error.code == .ioError && error.description.contains("member \"text.txt\"\(expected)"), "\(error)")
            #expect(!text.isRegularFileContentsLoaded)
            #expect(Array(try ZipContainerReadTests.wrapper(at: "sub/noise.bin", in: root).readRegularFileContents()) == files[1].contents)
        }
    }

    /// A member that declares fewer bytes than its data expands to, 1 MiB
    /// of zeros in a few dozen bytes of bzip2 or LZMA: reading stops past what
    /// it declares, and never hands on more.
    @Test(arguments: [Tool.pythonBzip2, .pythonLZMA])
    func aMemberExpandingPastItsDeclaredSizeIsStopped(tool: Tool) throws {
        let directory = try TemporaryDirectory()
        let zip = try Self.zip([("bomb.bin", [UInt8](repeating: 0, count: 1 << 20))], with: tool, in: directory)
        try Self.patch(zip, .size(10_000), member: "bomb.bin")
        let compressedSize = try #require(try Self.listing(zip)[Array("bomb.bin".utf8)]?.compressedSize)
        try #require(compressedSize < 2000)

        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        let bomb = try ZipContainerReadTests.wrapper(at: "bomb.bin", in: root)
        var handed = 0
        let error = try #require(throws: FileWrapperError.self) {
            try bomb.forEachContentsBlock(blockSize: 4096) { handed += $0.count }
        }
        #expect(handed <= 10_000)
        // bzip2 decodes on, and the reader stops it past the size; libarchive stops the LZMA stream itself (liblzma's LZMA_BUF_ERROR).
        let message = tool == .pythonBzip2 ? "the data expands to more than the 10000 bytes" : "the compressed data cannot be decoded"
        #expect(error.path == zip.path && error.description.contains("member \"bomb.bin\": \(message)"), "\(error)")
        #expect(throws: FileWrapperError.self) { try bomb.readRegularFileContents() }
    }

    /// The dictionary an LZMA member declares is held to the memory limit
    /// before libarchive allocates it.
    @Test func anLZMADictionaryOverTheMemoryLimitIsRefused() throws {
        let directory = try TemporaryDirectory()
        let files = Self.files(seed: 14)
        let zip = try Self.zip(files, with: .pythonLZMA, in: directory)
        let tight = try ZipContainer.fileWrapper(contentsOf: zip, limits: ArchiveReadLimits(maxMemory: 1 << 20))
        let error = try #require(throws: FileWrapperError.self) { try ZipContainerReadTests.wrapper(at: "text.txt", in: tight).readRegularFileContents() }
        #expect(error.path == zip.path && error.description.contains("the zip member \"text.txt\"")
                && error.description.contains("compressed with LZMA") && error.description.contains("more than the limit of 1048576 bytes"), "\(error)")
        let roomy = try ZipContainer.fileWrapper(contentsOf: zip)
        #expect(Array(try ZipContainerReadTests.wrapper(at: "text.txt", in: roomy).readRegularFileContents()) == files[0].contents)
    }

    @Test func anArchiveReplacedUnderTheTreeGivesTheChangedError() throws {
        let directory = try TemporaryDirectory()
        let zip = try Self.zip(Self.files(seed: 8), with: .infoZipBzip2, in: directory)
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        let other = directory.appending("other.zip")
        try FileManager.default.copyItem(at: zip, to: other)
        #expect(rename(other.path, zip.path) == 0)
        let error = try #require(throws: FileWrapperError.self) { try ZipContainerReadTests.wrapper(at: "text.txt", in: root).readRegularFileContents() }
        #expect(error.code == .changedOnDisk && error.path == zip.path, "\(error)")
    }

    /// A save that changed one member copies a bzip2 member as stored, and
    /// the zip passes `unzip -t`, bsdtar and Python's zipfile.
    @Test func aSaveCopiesABzip2MemberAsStored() throws {
        let directory = try TemporaryDirectory()
        let files = Self.files(seed: 21)
        let zip = try Self.zip(files, with: .infoZipBzip2, in: directory)
        let before = try StoredZipMembers.list(zip)
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        let changed = Array("changed\n".utf8)
        try ZipContainerSaveTests.replace("sub/noise.bin", in: root, with: changed)
        try ZipContainer.write(root, to: zip)

        let after = try StoredZipMembers.list(zip)
        func member(_ name: String, in members: [StoredZipMembers.Member]) -> StoredZipMembers.Member? {
            members.first { $0.name.utf8.elementsEqual(name.utf8) }
        }
        let text = try #require(member("text.txt", in: after))
        #expect(text.method == 12 && text == member("text.txt", in: before), "the bzip2 member was not copied as stored")
        #expect(member("sub/noise.bin", in: after) != member("sub/noise.bin", in: before))
        try ZipContainerSaveTests.checkWithOtherTools(zip, expected: ["text.txt": files[0].contents, "sub/noise.bin": changed, "empty": []], in: directory)
        #expect(Array(try ZipContainerReadTests.wrapper(at: "text.txt", in: root).readRegularFileContents()) == files[0].contents)
    }

    /// Deflate64 (7-Zip's method 9), which libarchive does not decode
    /// either, still makes the zip refused, naming the member and method.
    @Test func aMethodLibarchiveDoesNotDecodeIsRefused() throws {
        let directory = try TemporaryDirectory()
        try Data(Self.files(seed: 3)[0].contents).write(to: directory.appending("text.txt"))
        let zip = directory.appending("deflate64.zip")
        try Interop.run("7z", ["a", "-bd", "-tzip", "-mm=Deflate64", zip.path, "text.txt"], in: directory.url)
        let error = try #require(throws: ArchiveError.self) { try ZipContainer.fileWrapper(contentsOf: zip) }
        #expect(error.code == .unsupportedFormat && error.entry.map { Array($0.utf8) } == Array("text.txt".utf8) && error.message.contains("method 9"), "\(error)")
    }

    /// `STUB ZIP OUT`: the zip64 zip after the stub with every offset moved
    /// by the stub's length, as `zip -A` adjusts a self-extracting zip
    /// (Info-ZIP's zip 3.0 refuses to adjust a zip64 one).
    static let adjust = """
        import struct, sys
        stub, z = open(sys.argv[1], "rb").read(), bytearray(open(sys.argv[2], "rb").read())
        n, end = len(stub), z.rfind(b"PK\\x05\\x06")
        locator = z.rfind(b"PK\\x06\\x07", 0, end)
        end64 = struct.unpack_from("<Q", z, locator + 8)[0]
        count, size, at = struct.unpack_from("<QQQ", z, end64 + 32)
        struct.pack_into("<Q", z, end64 + 48, at + n)
        struct.pack_into("<Q", z, locator + 8, end64 + n)
        if struct.unpack_from("<I", z, end + 16)[0] != 0xFFFFFFFF:
            struct.pack_into("<I", z, end + 16, at + n)
        for _ in range(count):
            nl, xl, cl = struct.unpack_from("<HHH", z, at + 28)
            assert struct.unpack_from("<I", z, at + 42)[0] != 0xFFFFFFFF
            struct.pack_into("<I", z, at + 42, struct.unpack_from("<I", z, at + 42)[0] + n)
            at += 46 + nl + xl + cl
        open(sys.argv[3], "wb").write(stub + z)
        """

    /// A zip64 zip (Info-ZIP's `zip -fz`) after a stub, its offsets
    /// adjusted or not, is read lazily, as Info-ZIP's unzip and Python's
    /// zipfile read it; the adjusted one as the in-memory reader reads it
    /// too (libarchive 3.6.2 does not read the unadjusted one: bsdtar
    /// says "Damaged Zip archive", and the in-memory reader refuses it,
    /// `SelfExtractingZipReadTests`).
    @Test(arguments: [true, false])
    func aSelfExtractingZip64ReadsLazily(adjusted: Bool) throws {
        let directory = try TemporaryDirectory()
        let files = Array(Self.files(seed: 64).prefix(2))
        let source = try Self.writeSources(files, in: directory)
        try Interop.run("zip", ["-q", "-X", "-fz", directory.appending("zip64.zip").path] + files.map(\.path), in: source)
        let zip64 = try Data(contentsOf: directory.appending("zip64.zip"))
        try #require(zip64.range(of: Data([0x50, 0x4B, 0x06, 0x06])) != nil, "zip -fz wrote no zip64 end record")
        let stub = Data("#!/bin/sh\necho a self-extracting stub\nexit 0\n".utf8) + Data(repeating: UInt8(ascii: "#"), count: 3000)
        try stub.write(to: directory.appending("stub"))
        let zip = directory.appending("sfx.zip")
        if adjusted {
            try Interop.run("python3", ["-c", Self.adjust, "stub", "zip64.zip", zip.path], in: directory.url)
        } else {
            try (stub + zip64).write(to: zip)
        }
        // Python's zipfile tests it (Info-ZIP's unzip does too, but warns of the stub with status 1 when not adjusted).
        #expect(try StoredZipMembers.list(zip).map { Array($0.name.utf8) } == files.map { Array($0.path.utf8) })

        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        for (path, contents) in files {
            #expect(Array(try ZipContainerReadTests.wrapper(at: path, in: root).readRegularFileContents()) == contents, "\(path)")
        }
        if adjusted {
            let inMemory = try ArchiveReader.fileWrapper(contentsOf: zip, formats: .zip)
            #expect(try ZipContainerSaveTests.files(of: inMemory) == ZipContainerSaveTests.files(of: root))
        }
    }
}
