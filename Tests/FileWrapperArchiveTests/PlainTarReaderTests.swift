@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Our reader of plain tar files gives every entry of the tars that GNU
/// tar, bsdtar, Python's tarfile and our writer make the header and bytes
/// libarchive gives it; anything it does not read as libarchive does, it
/// leaves to libarchive, and the unpack starts again there.
@Suite(.startsProcesses) struct PlainTarReaderTests {
    /// Everything a plain tar of ASCII names holds: folders, files empty,
    /// small and larger than a read buffer, modes, times with nanoseconds,
    /// a name too long for ustar's name field, a symlink target too long for
    /// its link field (unless `ustar`, which has no room for it), a hard link:
    /// 17 entries, or 16.
    static func writeTree(at root: URL, ustar: Bool) throws {
        let long = String(repeating: "a-long-folder-name/", count: 7)
        let files: [(String, Int, mode_t)] = [
            ("empty", 0, 0o644), ("small.txt", 700, 0o600), ("tool", 3000, 0o755),
            ("sub/large.bin", (1 << 19) + 17, 0o644), (long + "deep.txt", 100, 0o644),
            ("sub/" + String(repeating: "n", count: 99), 10, 0o640),
        ]
        for (path, size, mode) in files {
            try Disk.write(Data(StoredCopyTests.large(size, seed: path.utf8.count)), to: root.appendingPathComponent(path), mode: mode)
        }
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("sub/link").path, withDestinationPath: "../small.txt")
        if !ustar {
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("far").path, withDestinationPath: long + "deep.txt")
        }
        #expect(link(root.appendingPathComponent("tool").path, root.appendingPathComponent("sub/tool-again").path) == 0)
        Disk.setModificationTime(root.appendingPathComponent("small.txt"), seconds: 1_700_000_000, nanoseconds: 123_456_789)
    }

    /// The programs and formats whose plain tars the reader reads whole.
    static let writers: [[String]] = [
        ["tar", "--format=gnu", "-cf"], ["tar", "--format=posix", "-cf"], ["tar", "--format=ustar", "-cf"],
        ["bsdtar", "--format=pax", "-cf"], ["bsdtar", "--format=ustar", "-cf"], ["bsdtar", "-cf"],
        ["python3", "-c", Interop.Python.tarfileCreate, "w", "GNU_FORMAT"],
        ["python3", "-c", Interop.Python.tarfileCreate, "w", "PAX_FORMAT"],
        ["wrapinspect"],
    ]

    @Test(arguments: writers)
    func readsWhatLibarchiveReads(writer: [String]) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        let ustar = writer.contains { $0.hasSuffix("ustar") }
        try Self.writeTree(at: source, ustar: ustar)
        let archive = directory.appending("archive.tar")
        if writer == ["wrapinspect"] {
            try ArchiveWriter.write(contentsOf: source, to: archive, options: ArchiveWriteOptions(format: .tar))
        } else {
            let names = try FileManager.default.contentsOfDirectory(atPath: source.path).sorted()
            let result = try Disk.run("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", source.path] + writer + [archive.path] + names)
            try #require(result.status == 0, "\(writer): \(result.stderr)")
        }

        let reader = try #require(PlainTarReader.opening(archive, formats: .standard))
        let ours = try Self.entries(reader)
        let libarchive = try Self.entries(ArchiveReadHandle.reading(archive, formats: .standard))
        // wrapinspect writes the root's own "./" too.
        #expect(ours.count == (ustar ? 16 : 17) + (writer == ["wrapinspect"] ? 1 : 0))
        #expect(ours == libarchive)
    }

    /// An entry's header fields, as text, and its contents.
    struct Entry: Equatable {
        var header: String
        var contents: [UInt8]
    }

    /// Each entry, in archive order.
    static func entries(_ stream: some ArchiveEntryStream) throws -> [Entry] {
        var entries: [Entry] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let header = try stream.nextHeader() {
            var contents: [UInt8] = []
            while true {
                let count = try buffer.withUnsafeMutableBytes { try stream.readData(into: $0, entry: "") }
                if count == 0 { break }
                contents += buffer[..<count]
            }
            entries.append(Entry(header: """
                \(header.path ?? "-") type \(header.type) mode \(header.permissions) time \(header.modified) set \(header.modifiedIsSet) \
                owner \(header.owner.map { "\($0)" } ?? "-") symlink \(header.symlinkTarget ?? []) hardlink \(header.hardlinkTarget ?? "-") \
                bytes \(header.pathBytes ?? []) \(header.hardlinkBytes ?? []) size \(header.size ?? -1) encrypted \(header.isEncrypted)
                """, contents: contents))
        }
        return entries
    }

    /// What the reader leaves to libarchive, each made by a program that
    /// writes it: an unpack of each gives what libarchive alone gives.
    static let leftToLibarchive: [(name: String, script: String)] = [
        ("a non-ASCII name", "t.add('ünïcode.txt')"),
        ("a global extended header", "t.fileobj.write(tarfile.TarInfo.create_pax_global_header({'comment': 'global'})); t.offset += 1024"),
        ("an unknown extended record", "i = t.gettarinfo('a.txt'); i.pax_headers = {'VENDOR.key': 'value'}; t.addfile(i, open('a.txt', 'rb'))"),
        ("a name's character set", "i = t.gettarinfo('a.txt'); i.pax_headers = {'hdrcharset': 'BINARY'}; t.addfile(i, open('a.txt', 'rb'))"),
        ("a time before 1970", "i = t.gettarinfo('a.txt'); i.mtime = -1.5; t.addfile(i, open('a.txt', 'rb'))"),
        ("a FIFO", "i = tarfile.TarInfo('fifo'); i.type = tarfile.FIFOTYPE; t.addfile(i)"),
    ]

    @Test(arguments: leftToLibarchive.map(\.name))
    func whatItDoesNotReadGoesToLibarchive(_ name: String) throws {
        let script = try #require(Self.leftToLibarchive.first { $0.name == name }).script
        let directory = try TemporaryDirectory()
        try Disk.write(Data("first".utf8), to: directory.appending("first.txt"))
        try Disk.write(Data("a".utf8), to: directory.appending("a.txt"))
        try Disk.write(Data("ü".utf8), to: directory.appending("ünïcode.txt"))
        let program = """
            import tarfile
            with tarfile.open('archive.tar', 'w', format=tarfile.PAX_FORMAT) as t:
                t.add('first.txt')
                \(script)
            """
        let result = try Disk.run("/bin/sh", ["-c", "cd \"$0\" && exec python3 -c \"$1\"", directory.url.path, program])
        try #require(result.status == 0, "\(result.stderr)")
        let archive = directory.appending("archive.tar")

        let reader = try #require(PlainTarReader.opening(archive, formats: .standard))
        #expect(throws: PlainTarReader.Unsupported.self) { try Self.entries(reader) }

        let unpacked = directory.appending("unpacked")
        let ours = Result { try ArchiveUnpacker.unpack(archiveAt: archive, to: unpacked) }
        let libarchive = try Self.entries(ArchiveReadHandle.reading(archive, formats: .standard))
        if name == "a FIFO" {
            #expect(throws: ArchiveError.self) { try ours.get() }
            #expect(!FileManager.default.fileExists(atPath: unpacked.path))
        } else {
            #expect(try ours.get().entries == libarchive.count)
            #expect(try Data(contentsOf: unpacked.appendingPathComponent("first.txt")) == Data("first".utf8))
        }
    }

    /// Damage the reader meets after it has made files: the unpack starts
    /// again with libarchive, which refuses it, and nothing is left. A
    /// checksum written in base-256 is damage too: libarchive takes octal
    /// digits only there.
    @Test(arguments: ["checksum", "base-256 checksum", "truncated"])
    func damageFoundLateLeavesNothing(_ damage: String) throws {
        let directory = try TemporaryDirectory()
        var tar = TarBuilder()
        for index in 0..<300 { tar.file("folder/file-\(index).txt", contents: Array("file \(index)".utf8)) }
        tar.file("last.bin", contents: StoredCopyTests.large(10_000, seed: 1))
        var bytes = tar.archive
        let lastHeader = 300 * 1024
        switch damage {
        case "checksum": bytes[lastHeader + 5] ^= 1
        case "base-256 checksum":
            let sum = bytes[lastHeader..<(lastHeader + 512)].enumerated().reduce(0) { total, byte in
                total + ((148..<156).contains(byte.offset) ? Int(UInt8(ascii: " ")) : Int(byte.element))
            }
            bytes.replaceSubrange((lastHeader + 148)..<(lastHeader + 156), with: [0x80, 0, 0, 0, 0, 0, UInt8(sum >> 8), UInt8(sum & 0xFF)])
        default: bytes.removeLast(bytes.count - lastHeader - 512 - 4000)
        }
        let archive = directory.appending("damaged.tar")
        try bytes.write(to: archive)

        let reader = try #require(PlainTarReader.opening(archive, formats: .standard))
        #expect(throws: PlainTarReader.Unsupported.self) { try Self.entries(reader) }
        #expect(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["damaged.tar"])
    }

    /// A name the reader leaves to libarchive after 300 files it made: the
    /// unpack libarchive then makes from the start holds every entry once.
    @Test func anUnpackStartedAgainIsWhole() throws {
        let directory = try TemporaryDirectory()
        var tar = TarBuilder()
        for index in 0..<300 { tar.file("folder/file-\(index).txt", contents: Array("file \(index)".utf8)) }
        tar.file("ünïcode.txt", contents: Array("last".utf8))
        let archive = directory.appending("late.tar")
        try tar.archive.write(to: archive)

        let summary = try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        #expect(summary.entries == 301)
        let tree = try DiskTree(directory.appending("out"))
        #expect(tree.entries.values.filter { $0.kind == "file" }.count == 301)
        #expect(tree.entries["ünïcode.txt"]?.contents == Data("last".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["late.tar", "out"])
    }
}
