import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Names as archives store them (issue 22): libarchive 3.6.2 converts pax
/// names to Unicode NFC and refuses pax names that are not UTF-8; read as
/// stored, an NFD name (what macOS writes) stays NFD, an NFC and an NFD
/// sibling are two entries, and GNU tar's raw bytes are read. Names are
/// compared as bytes throughout. Archives made by GNU tar and bsdtar.
@Suite(.startsProcesses) struct StoredNameTests {
    static let nfd: [UInt8] = [0x65, 0xCC, 0x81]  // "e" + COMBINING ACUTE ACCENT
    static let nfc: [UInt8] = [0xC3, 0xA9]  // "é"

    /// A tree with an NFD and an NFC sibling, a symlink to the NFD one and,
    /// in a directory of an NFD name, a file; built with the shell so that
    /// the names are bytes.
    static func makeSource(in directory: TemporaryDirectory) throws -> URL {
        try Interop.run("/bin/sh", ["-c", """
            mkdir source && cd source && printf 1 > "$(printf 'e\\314\\201')" && printf 22 > "$(printf '\\303\\251')" \
            && ln -s "$(printf 'e\\314\\201')" link && mkdir "$(printf 'dir-e\\314\\201')" && printf 333 > "$(printf 'dir-e\\314\\201')/f"
            """], in: directory.url)
        return directory.appending("source")
    }

    static let tools: [(name: String, script: String)] = [
        ("GNU tar pax", "tar --format=pax -C source -cf archive.tar ."),
        ("GNU tar pax gzip", "tar --format=pax -C source -czf archive.tgz ."),
        ("bsdtar pax", "bsdtar --format pax -cf archive.tar -C source ."),
    ]

    /// The archive `script` makes of the source, in `directory`.
    static func archive(_ tool: String, in directory: TemporaryDirectory) throws -> URL {
        _ = try makeSource(in: directory)
        try Interop.run("/bin/sh", ["-c", try #require(tools.first { $0.name == tool }).script], in: directory.url)
        return directory.appending(try #require(try Disk.names(in: directory.url).first { $0.hasPrefix("archive.") }))
    }

    /// The paths below `url` as bytes, sorted, read with `readdir`.
    static func paths(below url: URL) -> [[UInt8]] {
        var paths: [[UInt8]] = []
        var pending: [[UInt8]] = [[]]
        let root = Array(url.path.utf8)
        while let relative = pending.popLast() {
            for name in SurroundingFiles.names(in: relative.isEmpty ? root : root + [UInt8(ascii: "/")] + relative) {
                let path = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
                paths.append(path)
                pending.append(path)
            }
        }
        return paths.sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test(arguments: tools.map(\.name))
    func namesAreReadAsStored(tool: String) throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.archive(tool, in: directory)
        var entries: [ArchiveEntry] = []
        try ArchiveEntries.forEach(in: Data(contentsOf: archive)) { entry, _ in entries.append(entry) }
        // Without "./" before and "/" after.
        let paths = entries.map { entry in
            let path = entry.pathBytes.starts(with: Array("./".utf8)) ? entry.pathBytes.dropFirst(2) : entry.pathBytes[...]
            return Array(path.last == UInt8(ascii: "/") ? path.dropLast() : path)
        }
        let expected = [Self.nfd, Self.nfc, Array("link".utf8), Array("dir-".utf8) + Self.nfd, Array("dir-".utf8) + Self.nfd + Array("/f".utf8)]
        #expect(expected.allSatisfy { name in paths.contains { $0 == name } }, "\(paths.map(PathDisplay.text))")
        let link = try #require(entries.first { $0.kind == .symbolicLink })
        #expect(link.symbolicLinkTarget == Self.nfd)

        let manifest = try Manifest(archiveAt: archive)
        #expect(manifest.entry(at: Self.nfd)?.size == 1)
        #expect(manifest.entry(at: Self.nfc)?.size == 2)
        #expect(manifest.treeDigest == (try Manifest(contentsOf: directory.appending("source")).treeDigest))
    }

    /// Unpacked, the copy has the names GNU tar's extraction gives, byte
    /// for byte (bsdtar's own extraction writes pax names in NFC).
    @Test(arguments: tools.map(\.name))
    func unpackWritesTheStoredNames(tool: String) throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.archive(tool, in: directory)
        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("copy"))
        try FileManager.default.createDirectory(at: directory.appending("gnu"), withIntermediateDirectories: false)
        try Interop.run("tar", ["-xf", archive.path, "-C", "gnu"], in: directory.url)
        let copied = Self.paths(below: directory.appending("copy"))
        #expect(copied == Self.paths(below: directory.appending("gnu")))
        #expect(copied == Self.paths(below: directory.appending("source")))
        let target = Array(try FileManager.default.destinationOfSymbolicLink(atPath: directory.appending("copy/link").path).utf8)
        #expect(target == Self.nfd)
    }

    /// A hard link whose target is an NFD name names that entry, not its NFC sibling.
    @Test func aHardLinkToAnNFDNameFindsIt() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.makeSource(in: directory)
        try Interop.run("/bin/sh", ["-c", "ln \"source/$(printf 'e\\314\\201')\" source/hard && tar --format=pax -C source -cf archive.tar ."],
                        in: directory.url)
        var targets: [[UInt8]] = []
        try ArchiveEntries.forEach(in: Data(contentsOf: directory.appending("archive.tar"))) { entry, _ in
            if let target = entry.hardLinkTarget { targets.append(target) }
        }
        #expect(targets.count == 1)
        #expect(targets.allSatisfy { $0.suffix(3) == Self.nfd[...] }, "\(targets.map(PathDisplay.text))")
        let manifest = try Manifest(archiveAt: directory.appending("archive.tar"))
        #expect(manifest.entry(at: Array("hard".utf8))?.size == 1)
    }

    /// GNU tar writes a name that is not UTF-8 into a pax `path` record as
    /// it is, without `hdrcharset`: listed and digested with its bytes; an
    /// unpack refuses it as for any tar, naming it.
    @Test func aRawNameInGNUPaxIsRead() throws {
        let directory = try TemporaryDirectory()
        try Interop.run("/bin/sh", ["-c", "mkdir source && printf x > \"source/$(printf 'raw\\377')\" && tar --format=pax -C source -cf archive.tar ."],
                        in: directory.url)
        let archive = directory.appending("archive.tar")
        var paths: [[UInt8]] = []
        try ArchiveEntries.forEach(in: Data(contentsOf: archive)) { entry, _ in paths.append(entry.pathBytes) }
        #expect(paths.contains(Array("./raw".utf8) + [0xFF]))
        let manifest = try Manifest(archiveAt: archive)
        #expect(manifest.entry(at: Array("raw".utf8) + [0xFF])?.size == 1)
        #expect(manifest.treeDigest == (try Manifest(contentsOf: directory.appending("source")).treeDigest))
    }

    /// pax times before 1970 with a fraction (`mtime=-0.5`) count back
    /// from the second before: -1 s + 500,000,000 ns, as on disk.
    @Test func paxTimesBefore1970KeepTheirFractions() throws {
        let directory = try TemporaryDirectory()
        try Interop.run("/bin/sh", ["-c", """
            mkdir source && touch -d '1969-12-31 23:59:59.5 UTC' source/half && touch -d '1969-12-31 23:59:58.25 UTC' source/quarter \
            && touch -d '1969-07-20 20:17:40 UTC' source/whole && touch -d '1969-01-01 00:00:00.000000001 UTC' source/source-root \
            && touch -d '1969-12-31 12:00:00.75 UTC' source && tar --format=pax -C source -cf archive.tar .
            """], in: directory.url)
        let archive = directory.appending("archive.tar")
        let disk = try Manifest(contentsOf: directory.appending("source"))
        let read = try Manifest(archiveAt: archive)
        let expected: [(String, Int64, Int32)] = [("half", -1, 500_000_000), ("quarter", -2, 250_000_000), ("whole", -14_182_940, 0),
                                                  ("source-root", -31_536_000, 1)]
        for (name, seconds, nanoseconds) in expected {
            #expect(disk.entry(at: Array(name.utf8))?.modified == FileTimestamp(seconds: seconds, nanoseconds: nanoseconds), "\(name) on disk")
            #expect(read.entry(at: Array(name.utf8))?.modified == FileTimestamp(seconds: seconds, nanoseconds: nanoseconds), "\(name)")
        }
        #expect(read.root.modified == FileTimestamp(seconds: -43_200, nanoseconds: 750_000_000))
        #expect(read.metadataDigest == disk.metadataDigest)

        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("copy"))
        #expect(try DiskTree(directory.appending("copy")) == (try DiskTree(directory.appending("source"))))
    }

    /// bsdtar writes zip names flagged UTF-8, which libarchive converts to
    /// NFC: read from the local header as stored (a zip read from a file).
    @Test func zipNamesAreReadAsStored() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(in: directory)
        try Interop.run("bsdtar", ["--format", "zip", "-cf", "archive.zip", "-C", "source", "."], in: directory.url)
        let archive = directory.appending("archive.zip")
        let manifest = try Manifest(archiveAt: archive)
        #expect(manifest.entry(at: Self.nfd)?.size == 1)
        #expect(manifest.entry(at: Self.nfc)?.size == 2)
        #expect(manifest.entry(at: Array("dir-".utf8) + Self.nfd + Array("/f".utf8))?.size == 3)
        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("copy"))
        #expect(Self.paths(below: directory.appending("copy")) == Self.paths(below: source))
    }

    /// From a pipe too: a zip read from a stream goes through a spool, so
    /// its names are checked against the central directory and read as stored.
    @Test func zipNamesFromAPipeAreReadAsStored() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.makeSource(in: directory)
        try Interop.run("bsdtar", ["--format", "zip", "-cf", "archive.zip", "-C", "source", "."], in: directory.url)
        let reader = try PipeFeed.reading(Data(contentsOf: directory.appending("archive.zip")))
        defer { close(reader) }
        let manifest = try Manifest(archiveFrom: reader, name: "pipe")
        #expect(manifest.entry(at: Self.nfd)?.size == 1)
        #expect(manifest.entry(at: Self.nfc)?.size == 2)
        #expect(manifest.entry(at: Array("link".utf8))?.linkTarget == Self.nfd)
    }

    /// A zip symlink's name and target, which libarchive also gives in
    /// NFC, are read as stored: Info-ZIP stores the target, bsdtar
    /// deflates it, Python's zipfile deflates a name flagged UTF-8.
    @Test(arguments: ["zip -qry ../archive.zip .", "bsdtar --format zip -cf ../archive.zip .", "python3"])
    func zipSymlinkNamesAndTargetsAreReadAsStored(script: String) throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(in: directory)
        try Interop.run("/bin/sh", ["-c", "ln -s \"$(printf 'dir-e\\314\\201')/f\" \"source/$(printf 'link-e\\314\\201')\""], in: directory.url)
        if script == "python3" {
            try Interop.run("python3", ["-c", #"""
                import os, stat, zipfile
                with zipfile.ZipFile('archive.zip', 'w', zipfile.ZIP_DEFLATED) as z:
                    for name in sorted(os.listdir(b'source')):
                        path = os.path.join(b'source', name)
                        if os.path.islink(path):
                            info = zipfile.ZipInfo(name.decode())
                            info.create_system = 3
                            info.external_attr = (stat.S_IFLNK | 0o777) << 16
                            z.writestr(info, os.readlink(path))
                """#], in: directory.url)
        } else {
            try Interop.run("/bin/sh", ["-c", "cd source && \(script)"], in: directory.url)
        }
        let archive = directory.appending("archive.zip")
        let manifest = try Manifest(archiveAt: archive)
        let named = Array("link-".utf8) + Self.nfd
        #expect(manifest.entry(at: named)?.linkTarget == Array("dir-".utf8) + Self.nfd + Array("/f".utf8))
        #expect(manifest.entry(at: Array("link".utf8))?.linkTarget == Self.nfd)
        if script != "python3" {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("copy"))
            #expect(Self.paths(below: directory.appending("copy")) == Self.paths(below: source))
            let target = Array(try FileManager.default.destinationOfSymbolicLink(atPath: directory.appending("copy/link").path).utf8)
            #expect(target == Self.nfd)
        }
    }

    /// 7-Zip stores names in UTF-16, which libarchive converts to NFC: read
    /// from the header as stored.
    @Test func sevenZipNamesAreReadAsStored() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(in: directory)
        try Interop.run("/bin/sh", ["-c", "cd source && 7z a -bd ../archive.7z . > /dev/null"], in: directory.url)
        let archive = directory.appending("archive.7z")
        let manifest = try Manifest(archiveAt: archive)
        #expect(manifest.entry(at: Self.nfd)?.size == 1)
        #expect(manifest.entry(at: Self.nfc)?.size == 2)
        #expect(manifest.entry(at: Array("dir-".utf8) + Self.nfd + Array("/f".utf8))?.size == 3)
        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("copy"))
        #expect(Self.paths(below: directory.appending("copy")) == Self.paths(below: source))
    }

    /// With libarchive's own filter detection (``ArchiveReadFormats/all``),
    /// names stay as stored too: a compression, or a wrapper only libarchive
    /// reads (uuencode around gzip), is decoded in a handle of its own, so
    /// the tar reader gets the bytes unfiltered.
    @Test(arguments: ["bzip2", "uuencoded gzip"])
    func namesAreReadAsStoredWhenLibarchiveDetectsFilters(wrapping: String) throws {
        let directory = try TemporaryDirectory()
        _ = try Self.makeSource(in: directory)
        if wrapping == "bzip2" {
            try Interop.run("bsdtar", ["--format", "pax", "--bzip2", "-cf", "archive", "-C", "source", "."], in: directory.url)
        } else {
            try Interop.run("bsdtar", ["--format", "pax", "-zcf", "archive.tgz", "-C", "source", "."], in: directory.url)
            // As `uuencode archive.tgz archive.tgz` writes it.
            try Interop.run("python3", ["-c", """
                import binascii; data = open('archive.tgz', 'rb').read(); out = open('archive', 'wb'); out.write(b'begin 644 archive.tgz\\n')
                for i in range(0, len(data), 45): out.write(binascii.b2a_uu(data[i:i + 45]))
                out.write(b'`\\nend\\n')
                """], in: directory.url)
        }
        let manifest = try Manifest(archiveAt: directory.appending("archive"), formats: .all)
        #expect(manifest.entry(at: Self.nfd)?.size == 1)
        #expect(manifest.entry(at: Self.nfc)?.size == 2)
        #expect(manifest.entry(at: Array("link".utf8))?.linkTarget == Self.nfd)
    }

    /// A self-extracting 7z (a program's bytes, then the 7z where
    /// libarchive looks for one, from byte 0x27000 on) keeps its names as
    /// stored too: the stub here is an `MZ` and zeros, as 7-Zip's Windows
    /// modules are not installed.
    @Test func selfExtractingSevenZipNamesAreReadAsStored() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(in: directory)
        try Interop.run("/bin/sh", ["-c", "cd source && 7z a -bd ../plain.7z . > /dev/null"], in: directory.url)
        let archive = directory.appending("setup.exe")
        try (Data("MZ".utf8) + Data(count: 0x27000 - 2) + Data(contentsOf: directory.appending("plain.7z"))).write(to: archive)
        let manifest = try Manifest(archiveAt: archive)
        #expect(manifest.entry(at: Self.nfd)?.size == 1)
        #expect(manifest.entry(at: Self.nfc)?.size == 2)
        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("copy"))
        #expect(Self.paths(below: directory.appending("copy")) == Self.paths(below: source))
    }

    /// The 7z and cpio that libarchive writes for us store names as given:
    /// 7-Zip and GNU cpio extract NFD names as NFD (set as UTF-8, libarchive
    /// wrote them in NFC). A tree to pack cannot hold an NFC and an NFD
    /// sibling (``FileWrapper`` refuses them), so the NFC one is removed.
    @Test(arguments: [("7z", "7z x -bd -o../extracted ../archive.7z > /dev/null"), ("cpio", "cpio -idm --quiet < ../archive.cpio")])
    func namesAreWrittenAsGiven(format: String, extract: String) throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(in: directory)
        try FileManager.default.removeItem(at: source.appending(path: String(decoding: Self.nfc, as: UTF8.self)))
        let archive = directory.appending("archive.\(format)")
        try ArchiveWriter.write(contentsOf: source, to: archive,
                                options: ArchiveWriteOptions(format: format == "7z" ? .sevenZip : .cpio))
        try FileManager.default.createDirectory(at: directory.appending("extracted"), withIntermediateDirectories: false)
        try Interop.run("/bin/sh", ["-c", "cd extracted && \(extract)"], in: directory.url)
        #expect(Self.paths(below: directory.appending("extracted")) == Self.paths(below: source))
    }

    /// A zip made as Windows tools make them: names in code page 437
    /// without the UTF-8 flag (Python's zipfile, told to encode them so).
    static func makeCodePage437Zip(in directory: TemporaryDirectory) throws -> URL {
        try Interop.run("python3", ["-c", #"""
            import zipfile
            class Info(zipfile.ZipInfo):
                def _encodeFilenameFlags(self): return self.filename.encode('cp437'), self.flag_bits
            with zipfile.ZipFile('cp437.zip', 'w') as z:
                z.writestr(Info('caf\u00e9.txt'), 'one')
                z.writestr(Info('\u00c7a/\u00fc\u2591.txt'), 'two')
                z.writestr(Info('plain-\u00e9.txt'.encode('utf-8').decode('cp437')), 'three')
            """#], in: directory.url)
        return directory.appending("cp437.zip")
    }

    /// Decoded as code page 437 unless valid UTF-8 (APPNOTE, appendix D),
    /// in UTF-8, as Python's zipfile extracts them (bsdtar writes the
    /// bytes as they are); the third name's bytes are UTF-8, unflagged.
    @Test func zipNamesWithoutTheUTF8FlagAreCodePage437() throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.makeCodePage437Zip(in: directory)
        var entries: [ArchiveEntry] = []
        try ArchiveEntries.forEach(in: Data(contentsOf: archive)) { entry, _ in entries.append(entry) }
        let expected = [Array("café.txt".utf8), Array("Ça/ü░.txt".utf8), Array("plain-é.txt".utf8)]
        #expect(entries.map(\.pathBytes) == expected, "\(entries.map(\.displayPath))")

        try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("copy"))
        try Interop.run("python3", ["-m", "zipfile", "-e", "cp437.zip", "python"], in: directory.url)
        let copied = Self.paths(below: directory.appending("copy"))
        #expect(copied.contains(Array("Ça/ü░.txt".utf8)))
        // Python reads the third name as code page 437 whatever its bytes; the rest agree.
        let python = Self.paths(below: directory.appending("python")).filter { !$0.starts(with: Array("plain".utf8)) }
        #expect(copied.filter { !$0.starts(with: Array("plain".utf8)) } == python)
        #expect(try Manifest(archiveAt: archive).entry(at: Array("Ça/ü░.txt".utf8))?.size == 3)
    }

    /// A name flagged UTF-8 whose bytes are not stays refused, naming the entry.
    @Test func aZipNameFlaggedUTF8ThatIsNotIsRefused() throws {
        let directory = try TemporaryDirectory()
        try Interop.run("python3", ["-c", #"""
            import zipfile
            class Info(zipfile.ZipInfo):
                def _encodeFilenameFlags(self): return b'bad\xff.txt', self.flag_bits | 0x800
            with zipfile.ZipFile('flagged.zip', 'w') as z:
                z.writestr(Info('x'), 'one')
            """#], in: directory.url)
        let error = try #require(throws: ArchiveError.self) {
            try Manifest(archiveAt: directory.appending("flagged.zip"))
        }
        #expect(error.entry?.hasPrefix("bad") == true, "\(error)")
        #expect(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: directory.appending("flagged.zip"), to: directory.appending("copy"))
        }
    }
}
