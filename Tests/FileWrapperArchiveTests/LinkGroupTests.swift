@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Hard-link groups whose contents travel with a member other than the
/// first: SVR4 cpio (`newc`, `crc`, as GNU cpio and bsdtar write them)
/// stores the contents with a group's last link and the earlier members
/// empty, and a pax hard link may carry contents of its own. Every member
/// gets the contents, from whichever member carries them, as bsdtar
/// extracts them: in an unpack (one inode, as many links as bsdtar's), the
/// in-memory tree, an archive's manifest and a member's bytes.
@Suite(.startsProcesses) struct LinkGroupTests {
    /// A program's way of writing the tree at the current directory to the
    /// archive `$1`.
    struct Writer: Sendable, CustomTestStringConvertible {
        var name: String
        var command: String
        var testDescription: String { name }
    }

    /// Paths below the source tree, for the programs that take a list.
    private static let list = "find . -mindepth 1 -printf '%P\\n' | LC_ALL=C sort"

    /// Writes the tree as a pax tar in which each hard-link group's first
    /// member is a regular file (empty; or, when the argument after the
    /// archive is `replace`, with other bytes, mode 0600 and an older time)
    /// and its last member a hard link that carries the contents, with an
    /// extended header of its own.
    static let pythonLinksWithData = """
        import io, os, sys, tarfile
        archive, mode, variant = sys.argv[1:4]
        directories, groups = [], {}
        for root, subdirectories, files in os.walk('.'):
            subdirectories.sort()
            directories += [os.path.normpath(os.path.join(root, name)) for name in subdirectories]
            for name in sorted(files):
                path = os.path.normpath(os.path.join(root, name))
                groups.setdefault(os.lstat(path).st_ino, []).append(path)
        with tarfile.open(archive, mode, format=tarfile.PAX_FORMAT) as tar:
            for path in directories:
                tar.add(path, recursive=False)
            for members in sorted(sorted(group) for group in groups.values()):
                data = open(members[0], 'rb').read()
                first = tar.gettarinfo(members[0])
                if len(members) == 1:
                    tar.addfile(first, io.BytesIO(data))
                    continue
                other = b'other bytes, which the last link replaces' if variant == 'replace' else b''
                if variant == 'replace':
                    first.mode, first.mtime = 0o600, 1000000000
                first.size = len(other)
                tar.addfile(first, io.BytesIO(other))
                for path in members[1:]:
                    link = tar.gettarinfo(path)
                    link.type, link.linkname = tarfile.LNKTYPE, members[0]
                    if path == members[-1]:
                        link.size = len(data)
                        link.pax_headers = {'comment': 'this hard link carries the contents'}
                        tar.addfile(link, io.BytesIO(data))
                    else:
                        link.size = 0
                        tar.addfile(link)
        """

    static let writers: [Writer] = [
        Writer(name: "GNU cpio newc", command: "\(list) | cpio --quiet -o -H newc > \"$1\""),
        Writer(name: "GNU cpio crc", command: "\(list) | cpio --quiet -o -H crc > \"$1\""),
        Writer(name: "GNU cpio odc", command: "\(list) | cpio --quiet -o -H odc > \"$1\""),
        Writer(name: "bsdtar newc", command: "bsdtar --format newc -cf \"$1\" *"),
        Writer(name: "bsdtar pax", command: "bsdtar --format pax -cf \"$1\" *"),
        Writer(name: "GNU tar", command: "tar --format=gnu -cf \"$1\" *"),
        Writer(name: "Python pax, contents with the last link", command: "python3 -c \"$0\" \"$1\" w last"),
        Writer(name: "Python pax, a link's contents replace the file's", command: "python3 -c \"$0\" \"$1\" w replace"),
        Writer(name: "Python pax.gz, contents with the last link", command: "python3 -c \"$0\" \"$1\" w:gz last"),
    ]

    /// An archive written by `writer` beside a tree with three hard-link
    /// groups (three names across folders, a file larger than the unpack
    /// streams, an executable) besides an empty pair and a lone file, and
    /// that archive as bsdtar extracts it.
    struct Fixture {
        let directory: TemporaryDirectory
        let archive: URL
        let extracted: URL
        /// Files of bsdtar's extraction by path, and their modes.
        let files: [String: Data]
        let modes: [String: UInt32]

        init(_ writer: Writer, function: String = #function) throws {
            directory = try TemporaryDirectory(function)
            let source = directory.appending("source")
            let contents: [(String, Int, mode_t)] = [
                ("top.txt", 3000, 0o644), ("big.bin", FileWorkers.largeFile + 4099, 0o644), ("tool", 100, 0o755),
                ("single.txt", 50, 0o644), ("empty", 0, 0o644),
            ]
            for (path, size, mode) in contents {
                try Disk.write(Data(StoredCopyTests.large(size, seed: path.utf8.count)), to: source.appendingPathComponent(path), mode: mode)
            }
            let links = [
                ("top.txt", "sub/again.txt"), ("top.txt", "sub/deeper/third.txt"), ("big.bin", "sub/big-link.bin"),
                ("tool", "sub/deeper/tool-link"), ("empty", "empty-link"),
            ]
            for (target, link) in links {
                try FileManager.default.createDirectory(at: source.appendingPathComponent(link).deletingLastPathComponent(), withIntermediateDirectories: true)
                try #require(Glibc.link(source.appendingPathComponent(target).path, source.appendingPathComponent(link).path) == 0)
            }
            archive = directory.appending("archive")
            try Interop.run("sh", ["-c", writer.command, LinkGroupTests.pythonLinksWithData, archive.path], in: source)
            extracted = try LinkGroupTests.extractWithBsdtar(archive, in: directory)
            let tree = try DiskTree(extracted)
            files = tree.entries.compactMapValues(\.contents)
            modes = tree.entries.filter { $0.value.kind == "file" }.mapValues(\.mode)
            // The writer stored the groups as groups, and bsdtar made each whole.
            #expect(try LinkGroupTests.inodeGroups(extracted)[["sub/again.txt", "sub/deeper/third.txt", "top.txt"]] == 3)
            let whole = files["sub/deeper/third.txt"] == Data(StoredCopyTests.large(3000, seed: "top.txt".utf8.count))
            #expect(whole, "bsdtar gave the last member of the group its contents")
        }
    }

    /// bsdtar's extraction of `archive`: the reference.
    static func extractWithBsdtar(_ archive: URL, in directory: TemporaryDirectory) throws -> URL {
        let extracted = directory.appending("bsdtar")
        try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: false)
        try Interop.run("bsdtar", ["-xf", archive.path], in: extracted)
        return extracted
    }

    /// The regular files below `root` that share an inode, each group's
    /// paths sorted, with the inode's link count.
    static func inodeGroups(_ root: URL) throws -> [[String]: Int] {
        var byInode: [UInt64: (paths: [String], links: Int)] = [:]
        for (path, entry) in try DiskTree(root).entries where entry.kind == "file" {
            let url = root.appendingPathComponent(path)
            byInode[Disk.inode(url), default: ([], Disk.linkCount(url))].paths.append(path)
        }
        return Dictionary(uniqueKeysWithValues: byInode.values.map { ($0.paths.sorted(), $0.links) })
    }

    @Test(arguments: writers)
    func anUnpackMakesTheGroupsBsdtarMakes(writer: Writer) throws {
        let fixture = try Fixture(writer)
        let unpacked = fixture.directory.appending("ours")
        try ArchiveUnpacker.unpack(archiveAt: fixture.archive, to: unpacked)

        let differences = Interop.differences(
            expected: try DiskTree(fixture.extracted, directoryTimes: false), actual: try DiskTree(unpacked, directoryTimes: false),
            fidelity: Interop.Fidelity(times: .nanoseconds))
        Interop.expectNothing(differences, "our unpack of the \(writer.name) archive, against bsdtar's")
        #expect(try Self.inodeGroups(unpacked) == Self.inodeGroups(fixture.extracted))
    }

    @Test(arguments: writers)
    func theInMemoryTreeHoldsTheContentsInEveryMember(writer: Writer) throws {
        let fixture = try Fixture(writer)
        let root = try ArchiveReader.fileWrapper(contentsOf: fixture.archive)

        var files: [String: Data] = [:]
        var modes: [String: UInt32] = [:]
        var pending = [("", root)]
        while let (path, wrapper) = pending.popLast() {
            for (name, child) in wrapper.fileWrappers ?? [:] {
                let childPath = path.isEmpty ? name : path + "/" + name
                if child.isDirectory { pending.append((childPath, child)) }
                if child.isRegularFile {
                    files[childPath] = child.regularFileContents
                    modes[childPath] = child.attributes.permissions.map(UInt32.init)
                }
            }
        }
        #expect(files.keys.sorted() == fixture.files.keys.sorted())
        #expect(Self.differing(files, fixture.files).isEmpty)
        #expect(modes == fixture.modes)
    }

    /// The paths whose bytes in `files` are not those in `expected`, with
    /// their sizes (a failure prints these, not the bytes).
    static func differing(_ files: [String: Data], _ expected: [String: Data]) -> [String] {
        expected.keys.sorted().compactMap { path in
            files[path] == expected[path] ? nil : "\(path): \(files[path]?.count ?? -1) bytes, expected \(expected[path]?.count ?? -1)"
        }
    }

    /// Each member's size, digest, mode and time are those of bsdtar's file.
    @Test(arguments: writers)
    func theManifestGivesEveryMemberTheContentsSizeAndDigest(writer: Writer) throws {
        let fixture = try Fixture(writer)
        let manifest = try Manifest(archiveAt: fixture.archive)
        let reference = try Manifest(contentsOf: fixture.extracted)

        let members = manifest.entries.filter { $0.contentKind == .file }
        #expect(members.count == fixture.files.count)
        for entry in members {
            let expected = try #require(reference.entry(at: entry.path), "\(entry.displayPath)")
            #expect(entry.size == expected.size, "\(entry.displayPath)")
            #expect(entry.contentDigest == expected.contentDigest, "\(entry.displayPath)")
            #expect(entry.permissions == expected.permissions, "\(entry.displayPath)")
            #expect(entry.modified == expected.modified, "\(entry.displayPath)")
        }
        #expect(manifest.treeDigestText == reference.treeDigestText)
    }

    @Test(arguments: writers)
    func everyMembersBytesAreTheContents(writer: Writer) throws {
        let fixture = try Fixture(writer)
        var files: [String: Data] = [:]
        for path in fixture.files.keys {
            var bytes = Data()
            try MemberContents.forEachBlock(ofMember: path, in: fixture.archive) { bytes.append(contentsOf: $0) }
            files[path] = bytes
        }
        #expect(Self.differing(files, fixture.files).isEmpty)
    }

    // MARK: Limits and refusals

    /// A pax tar (gzip-compressed unless `plain`) whose empty file `a` gets
    /// `size` seeded bytes (or zeros) from the hard link `b` to it.
    static func linkCarrying(_ size: Int, zeros: Bool = false, plain: Bool = false, in directory: TemporaryDirectory) throws -> URL {
        let archive = directory.appending(plain ? "carrying.tar" : "carrying.tar.gz")
        let data = zeros ? Data(count: size) : Data(StoredCopyTests.large(size, seed: 7))
        try data.write(to: directory.appending("data"))
        let program = """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], sys.argv[2], format=tarfile.PAX_FORMAT) as tar:
                tar.addfile(tarfile.TarInfo('a'))
                link = tarfile.TarInfo('b')
                link.type, link.linkname, link.pax_headers = tarfile.LNKTYPE, 'a', {'comment': 'carries'}
                data = open(sys.argv[3], 'rb').read()
                link.size = len(data)
                tar.addfile(link, io.BytesIO(data))
            """
        try Interop.run("python3", ["-c", program, archive.path, plain ? "w" : "w:gz", directory.appending("data").path],
                        in: directory.url)
        return archive
    }

    /// The contents a hard link carries count against the byte and ratio
    /// limits as a regular file's do, in an unpack and in memory.
    @Test(arguments: [ArchiveReadLimits.Limit.maxBytes, .maxRatio])
    func aLinksContentsCountAgainstTheLimits(limit: ArchiveReadLimits.Limit) throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.linkCarrying(100_000, zeros: limit == .maxRatio, in: directory)
        var limits = ArchiveReadLimits.unpacking
        if limit == .maxBytes { limits.maxBytes = 50_000 } else { (limits.maxRatio, limits.ratioGraceBytes) = (10, 0) }

        let destination = directory.appending("out")
        let unpacking = #expect(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: destination, options: ArchiveUnpackOptions(limits: limits))
        }
        #expect(unpacking?.limit == limit)
        #expect(unpacking?.entry == "b")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let reading = #expect(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(contentsOf: archive, limits: limits) }
        #expect(reading?.limit == limit)
        #expect(reading?.entry == "b")
    }

    /// A hard link that carries contents but names no earlier regular file
    /// (a symlink to one, a directory, a file that comes after it, nothing)
    /// stays refused wherever the archive is read.
    @Test(arguments: ["a symlink", "a directory", "a later file", "nothing"])
    func aLinkWithContentsToWhatIsNotAnEarlierFileIsRefused(target: String) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("link.tar")
        let earlier = switch target {
        case "a symlink": "tar.addfile(tarfile.TarInfo('inside')); t = tarfile.TarInfo('t'); t.type, t.linkname = tarfile.SYMTYPE, 'inside'; tar.addfile(t)"
        case "a directory": "t = tarfile.TarInfo('t'); t.type = tarfile.DIRTYPE; tar.addfile(t)"
        default: "pass"
        }
        let later = target == "a later file" ? "tar.addfile(tarfile.TarInfo('t'))" : "pass"
        let program = """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as tar:
                \(earlier)
                link = tarfile.TarInfo('link')
                link.type, link.linkname, link.pax_headers, link.size = tarfile.LNKTYPE, 't', {'comment': 'carries'}, 8
                tar.addfile(link, io.BytesIO(b'replaced'))
                \(later)
            """
        try Interop.run("python3", ["-c", program, archive.path], in: directory.url)

        let destination = directory.appending("out")
        let unpacking = #expect(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: archive, to: destination) }
        #expect(unpacking?.entry == "link")
        #expect(unpacking?.message.contains("is not an earlier regular file") == true, "\(String(describing: unpacking))")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let reading = #expect(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(contentsOf: archive) }
        #expect(reading?.entry == "link")
        let listing = #expect(throws: ArchiveError.self) { try Manifest(archiveAt: archive) }
        #expect(listing?.entry == "link")
        let member = #expect(throws: ManifestError.self) { try MemberContents.forEachBlock(ofMember: "link", in: archive) { _ in } }
        #expect(member?.message.contains("not an earlier file") == true, "\(String(describing: member))")
    }

    // MARK: Our plain tar reader

    /// Tars in which a hard link carries contents. libarchive takes them
    /// once it has read a pax extended header anywhere before or at the
    /// link, and so does our reader; in a tar without one, libarchive
    /// guesses from the bytes after the header, and our reader leaves it
    /// the archive.
    static let plainTarLinks: [(name: String, script: String, read: Bool)] = [
        ("an extended header of its own", "add(first()); link(pax={'comment': 'carries'})", true),
        ("an extended header before it", "add(first(), pax={'comment': 'pax'}); link()", true),
        ("ustar, no extended header", "add(first()); link()", false),
        ("GNU", "add(first()); link()", false),
    ]

    @Test(arguments: plainTarLinks.map(\.name))
    func ourTarReaderReadsALinksContentsAsLibarchiveDoes(_ name: String) throws {
        let (_, script, read) = try #require(Self.plainTarLinks.first { $0.name == name })
        let directory = try TemporaryDirectory()
        let archive = directory.appending("archive.tar")
        let format = name == "GNU" ? "GNU_FORMAT" : name.hasPrefix("ustar") ? "USTAR_FORMAT" : "PAX_FORMAT"
        let program = """
            import io, sys, tarfile
            tar = tarfile.open(sys.argv[1], 'w', format=tarfile.\(format))
            def add(info, data=b'', pax=None):
                info.mtime, info.size = 1700000000, len(data)
                if pax: info.pax_headers = pax
                tar.addfile(info, io.BytesIO(data))
            def first():
                return tarfile.TarInfo('a')
            def link(pax=None):
                info = tarfile.TarInfo('b')
                info.type, info.linkname, info.mode = tarfile.LNKTYPE, 'a', 0o640
                add(info, b'the contents of a and b', pax)
            exec(sys.argv[2])
            add(tarfile.TarInfo('z'), b'last')
            tar.close()
            """
        try Interop.run("python3", ["-c", program, archive.path, script], in: directory.url)

        let reader = try #require(PlainTarReader.opening(archive, formats: .standard))
        if read {
            let ours = try PlainTarReaderTests.entries(reader)
            #expect(ours == (try PlainTarReaderTests.entries(ArchiveReadHandle.reading(archive, formats: .standard))))
            #expect(ours.map(\.contents) == [[], Array("the contents of a and b".utf8), Array("last".utf8)])
        } else {
            #expect(throws: PlainTarReader.Unsupported.self) { try PlainTarReaderTests.entries(reader) }
        }
    }
}
