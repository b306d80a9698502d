import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Issue 20, the weaker points of reading: every error names its entry,
/// and a zip whose local headers name a member otherwise than its central
/// directory (what unzip and Python's zipfile show) is refused by every
/// reader. The archives are written by Python's zipfile and tarfile, then
/// damaged or patched byte by byte as an attacker would.
@Suite(.startsProcesses) struct HardeningTests {
    /// Every way the library reads an archive file: unpacking to disk, a
    /// tree in memory (from the file and from its bytes), a manifest (what
    /// `dump` and `digest` build), the entries as they stream with and
    /// without checking what is skipped, and one member's bytes (`cat`).
    static let readers: [(name: String, read: @Sendable (URL, URL) throws -> Void)] = [
        ("unpack", { archive, scratch in
            try ArchiveUnpacker.unpack(archiveAt: archive, to: scratch.appendingPathComponent("unpacked-\(UUID().uuidString)"))
        }),
        ("in memory", { archive, _ in _ = try ArchiveReader.fileWrapper(contentsOf: archive) }),
        ("in memory from data", { archive, _ in
            _ = try ArchiveReader.fileWrapper(from: try Data(contentsOf: archive), name: archive.relativePath)
        }),
        ("manifest", { archive, _ in _ = try Manifest(archiveAt: archive) }),
        ("entries", { archive, _ in try ArchiveEntries.forEach(in: archive) { _, _ in } }),
        ("entries unchecked", { archive, _ in try ArchiveEntries.forEach(in: archive, checkingContents: false) { _, _ in } }),
        ("member", { archive, _ in
            try MemberContents.forEachBlock(ofMember: "last.txt", in: archive) { _ in }
        }),
    ]

    /// Runs a Python program with the given arguments in `directory`.
    static func python(_ script: String, _ arguments: [String], in directory: TemporaryDirectory) throws {
        try Interop.run("python3", ["-c", script] + arguments, in: directory.url)
    }

    /// `ARCHIVE`: a zip of `first.txt`, `hello.txt` and `last.txt`, deflated.
    static let writeZip = """
        import sys, zipfile
        with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("first.txt", b"one\\n")
            z.writestr("hello.txt", b"hello world\\n" * 40)
            z.writestr("last.txt", b"the end\\n")
        """

    /// `ARCHIVE NAME OFFSET BYTE`: XORs the byte at OFFSET in the local
    /// header of the member NAME (found through the central directory)
    /// with BYTE.
    static let patchLocalHeader = """
        import sys, zipfile
        path, name, offset, value = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        with zipfile.ZipFile(path) as z:
            at = z.getinfo(name).header_offset
        data = bytearray(open(path, "rb").read())
        assert data[at:at + 4] == b"PK\\x03\\x04"
        data[at + offset] ^= value
        open(path, "wb").write(bytes(data))
        """

    // MARK: Every error names its entry

    /// libarchive checks a zip member's local header against the central
    /// directory and reports a difference as a warning ("Inconsistent
    /// CRC32 values", "Inconsistent compressed size: ..."), which used to
    /// reach the user without the member's name.
    @Test(arguments: [("CRC-32", 14), ("compressed size", 18), ("uncompressed size", 22)])
    func aLocalHeaderAtOddsWithTheDirectoryIsAnErrorNamingTheMember(field: String, offset: Int) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("damaged.zip")
        try Self.python(Self.writeZip, [archive.path], in: directory)
        try Self.python(Self.patchLocalHeader, [archive.path, "hello.txt", String(offset), "1"], in: directory)
        for reader in Self.readers {
            let error = try #require(throws: ArchiveError.self, "\(reader.name)") { try reader.read(archive, directory.url) }
            #expect(error.entry == "hello.txt", "\(reader.name), \(field): \(error)")
            #expect(error.description.contains("\"hello.txt\": "), "\(reader.name): \(error)")
        }
    }

    /// A member whose bytes no longer match their CRC-32.
    @Test func aDamagedMemberIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("damaged.zip")
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
                z.writestr("first.txt", b"one\\n")
                z.writestr("hello.txt", b"hello world\\n" * 40)
                z.writestr("last.txt", b"the end\\n")
            data = bytearray(open(sys.argv[1], "rb").read())
            data[data.index(b"hello world")] ^= 1
            open(sys.argv[1], "wb").write(bytes(data))
            """
        try Self.python(script, [archive.path], in: directory)
        for reader in Self.readers where reader.name != "entries unchecked" && reader.name != "member" {
            let error = try #require(throws: ArchiveError.self, "\(reader.name)") { try reader.read(archive, directory.url) }
            #expect(error.entry == "hello.txt", "\(reader.name): \(error)")
        }
    }

    /// A tar.gz cut short in the middle of a member's data: an error names
    /// that member, or the last one read when the cut shows only in the
    /// header that should follow it (when the member's data is skipped).
    @Test func aTruncatedCompressedTarIsAnErrorNamingTheEntry() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("cut.tar.gz")
        let script = """
            import io, random, sys, tarfile
            random.seed(20)
            buffer = io.BytesIO()
            with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
                for name, size in (("first.txt", 4), ("big.bin", 300000), ("last.txt", 8)):
                    info = tarfile.TarInfo(name)
                    info.size = size
                    tar.addfile(info, io.BytesIO(random.randbytes(size)))
            data = buffer.getvalue()
            open(sys.argv[1], "wb").write(data[:len(data) // 2])
            """
        try Self.python(script, [archive.path], in: directory)
        for reader in Self.readers {
            let error = try #require(throws: ArchiveError.self, "\(reader.name)") { try reader.read(archive, directory.url) }
            #expect(error.entry == "big.bin", "\(reader.name): \(error)")
        }
    }

    // MARK: Local and central names

    /// `ARCHIVE`: the zip of ``writeZip`` with the local header of
    /// `hello.txt` naming it `evil!.txt`, a name of the same length.
    static let renameLocally = """
        import sys, zipfile
        path = sys.argv[1]
        with zipfile.ZipFile(path) as z:
            at = z.getinfo("hello.txt").header_offset
        data = bytearray(open(path, "rb").read())
        assert data[at + 30:at + 39] == b"hello.txt"
        data[at + 30:at + 39] = b"evil!.txt"
        open(path, "wb").write(bytes(data))
        """

    @Test func aZipWhoseLocalAndCentralNamesDifferIsRefusedByEveryReader() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("names.zip")
        try Self.python(Self.writeZip, [archive.path], in: directory)
        try Self.python(Self.renameLocally, [archive.path], in: directory)
        for reader in Self.readers {
            let error = try #require(throws: ArchiveError.self, "\(reader.name)") { try reader.read(archive, directory.url) }
            #expect(error.code == .corrupt, "\(reader.name)")
            #expect(error.entry == "evil!.txt", "\(reader.name): \(error)")
            #expect(error.message.contains("\"hello.txt\""), "\(reader.name): \(error)")
        }
        #expect(try Disk.names(in: directory.url).allSatisfy { !$0.hasPrefix("unpacked") }, "nothing unpacked is left")
    }

    /// Both names are shown escaped, so that a control character in either
    /// can neither hide nor drive the terminal.
    @Test func theRefusalShowsBothNamesEscaped() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("names.zip")
        try Self.python(Self.writeZip, [archive.path], in: directory)
        let script = """
            import sys, zipfile
            path = sys.argv[1]
            with zipfile.ZipFile(path) as z:
                at = z.getinfo("hello.txt").header_offset
            data = bytearray(open(path, "rb").read())
            data[at + 30:at + 39] = b"\\x1b[2Jo.txt"
            open(path, "wb").write(bytes(data))
            """
        try Self.python(script, [archive.path], in: directory)
        let error = try #require(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out")) }
        #expect(error.description.contains(#""\u{1B}[2Jo.txt""#), "\(error)")
        #expect(error.description.contains(#""hello.txt""#), "\(error)")
        #expect(!error.description.contains("\u{1B}"), "\(error)")
    }

    /// libarchive takes a name from an Info-ZIP Unicode Path field (0x7075)
    /// of the local header, unzip from that of the central directory: one
    /// in one of them only, or different ones, is a difference in names.
    @Test(arguments: ["local", "central"])
    func aUnicodePathFieldInOneHeaderOnlyIsRefused(kept: String) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("unicode.zip")
        let script = """
            import struct, sys, zipfile, zlib
            path, kept = sys.argv[1], sys.argv[2]
            def unicode_path(name, shown):
                return struct.pack("<HHBI", 0x7075, 5 + len(shown), 1, zlib.crc32(name)) + shown
            with zipfile.ZipFile(path, "w") as z:
                z.writestr("first.txt", b"one\\n")
                info = zipfile.ZipInfo("hello.txt")
                info.extra = unicode_path(b"hello.txt", "évil.txt".encode())
                z.writestr(info, b"hello\\n")
                z.writestr("last.txt", b"the end\\n")
            with zipfile.ZipFile(path) as z:
                local = z.getinfo("hello.txt").header_offset
                central = z.start_dir
            data = bytearray(open(path, "rb").read())
            # The field's ID (0x7075, "up") made one no reader knows, in the header that does not keep it.
            removed = local + 30 if kept == "central" else data.index(b"hello.txt", central)
            field = data.index(b"up", removed)
            data[field:field + 2] = b"vp"
            open(path, "wb").write(bytes(data))
            """
        try Self.python(script, [archive.path, kept], in: directory)
        for reader in Self.readers {
            let error = try #require(throws: ArchiveError.self, "\(reader.name)") { try reader.read(archive, directory.url) }
            #expect(error.message.contains("\u{E9}vil.txt"), "\(reader.name): \(error)")
            #expect(error.message.contains("Unicode Path"), "\(reader.name): \(error)")
        }
    }

    /// libarchive takes a Unicode Path field only when its CRC-32 is that
    /// of the name's bytes, and the first of two; unzip takes the last.
    /// Each zip shows `good.txt` in its central directory and makes
    /// libarchive read `evil.txt`, or unzip list it.
    @Test(arguments: ["a wrong CRC-32", "two fields"])
    func aUnicodePathThatReadersTakeOtherwiseIsRefused(variant: String) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("unicode.zip")
        let script = """
            import struct, sys, zipfile, zlib
            path, variant = sys.argv[1], sys.argv[2]
            def unicode_path(shown, crc):
                return struct.pack("<HHBI", 0x7075, 5 + len(shown), 1, crc) + shown
            with zipfile.ZipFile(path, "w") as z:
                z.writestr("first.txt", b"one\\n")
                if variant == "two fields":
                    info = zipfile.ZipInfo("good.txt")
                    good = zlib.crc32(b"good.txt")
                    info.extra = unicode_path(b"good.txt", good) + unicode_path(b"evil.txt", good)
                else:
                    # Named evil.txt; the field's good.txt, whose CRC-32 is not evil.txt's, does not hold.
                    info = zipfile.ZipInfo("evil.txt")
                    info.extra = unicode_path(b"good.txt", zlib.crc32(b"good.txt"))
                z.writestr(info, b"hello\\n")
            if variant != "two fields":
                with zipfile.ZipFile(path) as z:
                    central = z.start_dir
                data = bytearray(open(path, "rb").read())
                at = data.index(b"evil.txt", central)
                data[at:at + 8] = b"good.txt"
                open(path, "wb").write(bytes(data))
            """
        try Self.python(script, [archive.path, variant], in: directory)
        for reader in Self.readers {
            let error = try #require(throws: ArchiveError.self, "\(reader.name)") { try reader.read(archive, directory.url) }
            #expect(error.message.contains("the central directory \"good.txt\""), "\(reader.name): \(error)")
        }
    }

    /// What the check must let through: Info-ZIP's zip with a non-ASCII
    /// name, Python's zipfile with a Unicode Path field in both headers,
    /// and a zip after a stub (a self-extracting archive), whose offsets
    /// count from the stub's end.
    @Test func zipsWhoseNamesAgreeAreRead() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.appending("tree"), withIntermediateDirectories: false)
        try Disk.write("caf\u{E9}", to: directory.appending("tree/caf\u{E9}.txt"))
        try Disk.write("last", to: directory.appending("tree/last.txt"))
        try Interop.run("zip", ["-q", "-X", "../info-zip.zip", "caf\u{E9}.txt", "last.txt"], in: directory.appending("tree"))
        let script = """
            import struct, sys, zipfile, zlib
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                info = zipfile.ZipInfo("hello.txt")
                info.extra = struct.pack("<HHBI", 0x7075, 5 + 9, 1, zlib.crc32(b"hello.txt")) + b"hello.txt"
                z.writestr(info, b"hello\\n")
                z.writestr("last.txt", b"the end\\n")
            stub = b"#!/bin/sh\\nexit 0\\n" * 50
            open(sys.argv[2], "wb").write(stub + open(sys.argv[1], "rb").read())
            """
        try Self.python(script, [directory.appending("unicode.zip").path, directory.appending("stub.zip").path], in: directory)
        for archive in ["info-zip.zip", "unicode.zip", "stub.zip"] {
            for reader in Self.readers {
                #expect(throws: Never.self, "\(archive), \(reader.name)") { try reader.read(directory.appending(archive), directory.url) }
            }
        }
    }

    /// The same patch behind a stub: the offsets the check follows are
    /// corrected as libarchive corrects them.
    @Test func differentNamesBehindAStubAreRefused() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.appending("plain.zip")
        try Self.python(Self.writeZip, [plain.path], in: directory)
        try Self.python(Self.renameLocally, [plain.path], in: directory)
        let archive = directory.appending("stub.zip")
        try (Data(repeating: 0x23, count: 1000) + Data(contentsOf: plain)).write(to: archive)
        for reader in Self.readers {
            let error = try #require(throws: ArchiveError.self, "\(reader.name)") { try reader.read(archive, directory.url) }
            #expect(error.entry == "evil!.txt", "\(reader.name): \(error)")
        }
    }
}
