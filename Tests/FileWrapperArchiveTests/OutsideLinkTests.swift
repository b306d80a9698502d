import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Symlinks that lead out of the tree (issue 22, item 3): refused by
/// default, with an error that names ``ArchiveUnpackOptions/keepsOutsideLinks``;
/// with it, made as links, as bsdtar makes them, counted, and never followed:
/// nothing is written through them, and a refused archive leaves the
/// destination as it was. Archives made by GNU tar, bsdtar and Python's tarfile.
@Suite(.startsProcesses) struct OutsideLinkTests {
    /// A zoneinfo tree as Debian's tzdata ships it, with a link to
    /// `/etc/localtime` and one that climbs out of the tree, beside links
    /// that stay inside.
    static func makeZoneinfo(in directory: TemporaryDirectory) throws -> URL {
        let source = directory.appending("zoneinfo")
        for folder in ["Europe", "Etc", "posix/Europe"] {
            try FileManager.default.createDirectory(at: source.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Disk.write("TZif2 Paris\n", to: source.appendingPathComponent("Europe/Paris"))
        try Disk.write("TZif2 UTC\n", to: source.appendingPathComponent("Etc/UTC"))
        let links = [
            ("localtime", "/etc/localtime"), ("a", "../../x"),
            ("UTC", "Etc/UTC"), ("posix/Europe/Paris", "../../Europe/Paris"),
        ]
        for (path, target) in links {
            try FileManager.default.createSymbolicLink(atPath: source.appendingPathComponent(path).path, withDestinationPath: target)
        }
        return source
    }

    static let tools: [(name: String, script: String)] = [
        ("GNU tar", "tar -C zoneinfo -cf archive.tar ."),
        ("GNU tar pax", "tar --format=pax -C zoneinfo -czf archive.tgz ."),
        ("bsdtar", "bsdtar -cf archive.tar -C zoneinfo ."),
    ]

    /// Makes the zoneinfo tree and packs it with `tool`; returns the archive.
    static func zoneinfoArchive(by tool: String, in directory: TemporaryDirectory) throws -> URL {
        _ = try makeZoneinfo(in: directory)
        let script = try #require(tools.first { $0.name == tool }).script
        try Interop.run("/bin/sh", ["-c", script], in: directory.url)
        return directory.appending(try #require(try Disk.names(in: directory.url).first { $0.hasPrefix("archive.") }))
    }

    @Test(arguments: tools.map(\.name))
    func aZoneinfoTreeIsRefusedNamingTheOption(tool: String) throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.zoneinfoArchive(by: tool, in: directory)
        let before = try Disk.names(in: directory.url)

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        }

        #expect(error.code == .unsafePath)
        #expect(error.option == .keepsOutsideLinks)
        #expect(["./localtime", "./a"].contains(error.entry ?? ""), "\(error)")
        #expect(error.description.hasSuffix("(keepsOutsideLinks keeps such links)"), "\(error)")
        #expect(try Disk.names(in: directory.url) == before, "nothing left: no destination, no temporary")
    }

    @Test(arguments: tools.map(\.name))
    func withTheOptionAZoneinfoTreeUnpacksAsBsdtarExtractsIt(tool: String) throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.zoneinfoArchive(by: tool, in: directory)
        var options = ArchiveUnpackOptions()
        options.keepsOutsideLinks = true

        let summary = try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"), options: options)

        let reference = directory.appending("bsdtar")
        try FileManager.default.createDirectory(at: reference, withIntermediateDirectories: false)
        try Interop.run("bsdtar", ["-xf", archive.path, "-C", reference.path], in: directory.url)
        // bsdtar leaves the time of the folder it extracts into (the root entry's) as it was.
        let (ours, theirs) = (try DiskTree(directory.appending("out")).ignoringTimes, try DiskTree(reference).ignoringTimes)
        #expect(ours == theirs, "\(ours)\n\(theirs)")
        for (path, target) in [("localtime", "/etc/localtime"), ("a", "../../x"), ("UTC", "Etc/UTC")] {
            #expect(try Self.linkTarget(directory.appending("out/\(path)")) == Array(target.utf8), "\(path)")
        }
        #expect(summary.outsideLinks == 2, "localtime and a; UTC and posix/Europe/Paris stay inside")
    }

    /// What may follow a kept link to a directory outside: nothing of it
    /// is written there, the unpack is refused at that entry, and the
    /// destination is as it was.
    static let throughTheLink: [(name: String, python: String)] = [
        ("a file", "add_file('evil/passwd', b'root::0:0::/:/bin/sh\\n')"),
        ("a directory", "add('evil/sub', tarfile.DIRTYPE)"),
        ("a file deeper", "add_file('evil/sub/deeper', b'x')"),
        ("a symlink", "add('evil/s', tarfile.SYMTYPE, linkname='x')"),
        ("a hard link to it", "add('h', tarfile.LNKTYPE, linkname='evil')"),
        ("a hard link through it", "add('h', tarfile.LNKTYPE, linkname='evil/passwd')"),
    ]

    @Test(arguments: throughTheLink.map(\.name), ["absolute", "relative"])
    func nothingIsWrittenThroughAKeptLink(second: String, target: String) throws {
        let directory = try TemporaryDirectory()
        let outside = directory.appending("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        let linkTarget = target == "absolute" ? outside.path : "../outside"
        let entry = try #require(Self.throughTheLink.first { $0.name == second }).python
        let archive = try Self.pythonTar(named: "hostile.tar", in: directory, """
            add('evil', tarfile.SYMTYPE, linkname=\(Self.pythonBytes(linkTarget)).decode())
            \(entry)
            """)
        // An earlier unpack there, replaced only if the new one succeeds.
        let destination = directory.appending("out")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
        try Disk.write("kept\n", to: destination.appendingPathComponent("earlier.txt"))
        var options = ArchiveUnpackOptions(replacesExisting: true)
        options.keepsOutsideLinks = true

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: destination, options: options)
        }

        #expect([.unsafePath, .duplicateEntry].contains(error.code), "\(error)")
        #expect(error.entry != "evil", "the link itself is kept: \(error)")
        #expect(try Disk.names(in: outside).isEmpty, "nothing written outside")
        #expect(try Disk.names(in: directory.url).sorted() == ["hostile.tar", "out", "outside"])
        #expect(try Disk.names(in: destination) == ["earlier.txt"], "the destination as it was")
    }

    /// A link that stays inside when it is made but leads out through one
    /// made later is counted too: the count is of the finished tree.
    @Test func theCountFollowsLinksMadeLater() throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.pythonTar(named: "later.tar", in: directory, """
            add('d', tarfile.DIRTYPE)
            add('d/a', tarfile.SYMTYPE, linkname='../b/zone')
            add('b', tarfile.SYMTYPE, linkname='/usr/share/zoneinfo')
            add('through', tarfile.SYMTYPE, linkname='d/a/../..')
            add('up', tarfile.SYMTYPE, linkname='d/..')
            """)
        var options = ArchiveUnpackOptions()
        options.keepsOutsideLinks = true

        let summary = try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"), options: options)

        // d/a, inside when made, leads to /usr/share/zoneinfo/zone through
        // b; `through` is d/a/../.. = /usr/share; `up` is the root, inside.
        #expect(summary.outsideLinks == 3)
        #expect(try Self.linkTarget(directory.appending("out/d/a")) == Array("../b/zone".utf8))
    }

    /// A symlink where an earlier link's target climbed out with `..`
    /// would change where that link leads: refused with the option too.
    @Test func aLinkThatRedirectsAnEarlierOneIsStillRefused() throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.pythonTar(named: "redirect.tar", in: directory, """
            add('a', tarfile.SYMTYPE, linkname='z/../x')
            add('z', tarfile.SYMTYPE, linkname='/tmp')
            """)
        var options = ArchiveUnpackOptions()
        options.keepsOutsideLinks = true

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"), options: options)
        }

        #expect(error.entry == "z" && error.code == .unsafePath)
        #expect(error.option == nil, "no option lifts it: \(error)")
    }

    /// Every hostile fixture is refused with the option as without it,
    /// naming the same entry, but for those whose only fault is a link
    /// leading out: refused at the entry that would be written through it,
    /// or unpacked when nothing is.
    @Test(arguments: HostileFixtureTests.fixtures.filter { $0.expect == "refuse" && $0.limit == nil })
    func hostileFixturesKeepTheirResults(fixture: HostileFixtureTests.Fixture) throws {
        let directory = try TemporaryDirectory()
        let url = HostileFixtureTests.directory.appendingPathComponent(fixture.file)
        var options = ArchiveUnpackOptions()
        options.keepsOutsideLinks = true

        do {
            let summary = try ArchiveUnpacker.unpack(archiveAt: url, to: directory.appending("out"), options: options)
            #expect(fixture.file == "symlink-escape-chain.tar", "only a link out, nothing written through it")
            #expect(summary.outsideLinks == 1)
            #expect(try Self.linkTarget(directory.appending("out/b")) == Array("a/../FileWrapperKit-hostile-outside".utf8))
            #expect(try Disk.names(in: directory.url) == ["out"])
        } catch let error as ArchiveError {
            #expect(error.archive == url.path)
            if fixture.rule == "symlink-escape" {
                #expect(error.entry?.hasPrefix((fixture.entry ?? "") + "/") == true, "refused below the link: \(error)")
            } else if let entry = fixture.entry, error.code != .corrupt {
                #expect(error.entry == entry, "\(error)")
            }
            #expect(try Disk.names(in: directory.url).isEmpty, "the destination and the temporary are gone")
        }
        let outside = try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { $0.contains("FileWrapperKit-hostile") }
        #expect(outside.isEmpty)
    }

    /// A tar written by Python's tarfile from `body`, lines that call
    /// `add(name, type, linkname=...)` and `add_file(name, bytes)`.
    static func pythonTar(named name: String, in directory: TemporaryDirectory, _ body: String) throws -> URL {
        let script = """
            import io, sys, tarfile
            t = tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT)
            def add(name, kind, linkname=''):
                info = tarfile.TarInfo(name); info.type = kind; info.linkname = linkname; info.mode = 0o755; info.mtime = 1767225600
                t.addfile(info)
            def add_file(name, data):
                info = tarfile.TarInfo(name); info.size = len(data); info.mode = 0o644; info.mtime = 1767225600
                t.addfile(info, io.BytesIO(data))
            \(body)
            t.close()
            """
        let url = directory.appending(name)
        try Interop.run("python3", ["-c", script, url.path], in: directory.url)
        return url
    }

    /// `string` as a Python bytes literal, every byte escaped.
    static func pythonBytes(_ string: String) -> String {
        "b'" + string.utf8.map { "\\x" + String($0, radix: 16).leftPadded(to: 2) }.joined() + "'"
    }

    /// The target of the symlink at `url`, as bytes (`readlink(2)`).
    static func linkTarget(_ url: URL) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
        let count = buffer.withUnsafeMutableBufferPointer { readlink(url.path, $0.baseAddress!, $0.count) }
        try #require(count >= 0, "\(url.path) is not a symlink")
        return Array(buffer[..<count])
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
