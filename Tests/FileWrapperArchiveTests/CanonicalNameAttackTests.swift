import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Archives whose names are canonically equivalent but different bytes
/// (U+212A KELVIN SIGN and `K`): Swift's `String ==` takes them for one name,
/// libarchive and the file system for two. An unpacker that decides where
/// an entry goes on `String`s puts a symlink where its model does not see
/// it, and through it changes modes outside the destination or leaves a
/// link that leads out. Made by Python's tarfile and zipfile, as an
/// attacker would make them.
@Suite(.startsProcesses) struct CanonicalNameAttackTests {
    static let kelvin = "\u{212A}"

    /// A member of a hostile archive: `file`, `dir` or `symlink`, with the
    /// symlink's target or the file's contents.
    struct Member {
        var name: String
        var kind: String
        var content = ""
        var mode = 0o755
    }

    /// Symlinks `esc` and `K/t` that the kernel resolves out of the
    /// destination if `K/s` lands in the KELVIN SIGN directory.
    static let escapingLink: [Member] = [
        Member(name: kelvin + "/", kind: "dir"),
        Member(name: kelvin + "/a", kind: "file", content: "x"),
        Member(name: "K/s", kind: "symlink", content: ".."),
        Member(name: kelvin + "/t", kind: "symlink", content: "s/../.."),
        Member(name: "esc", kind: "symlink", content: kelvin + "/t"),
    ]

    /// The same, then a directory `K/v` whose mode, applied at the end,
    /// reaches through a symlink `\u{212A}/v` made in the ASCII `K` to
    /// `victim`, two levels above the destination.
    static let chmodOutside: [Member] = [
        Member(name: kelvin + "/", kind: "dir"),
        Member(name: kelvin + "/a", kind: "file", content: "x"),
        Member(name: "K/s", kind: "symlink", content: ".."),
        Member(name: "K/v/", kind: "dir", mode: 0o755),
        Member(name: kelvin + "/t", kind: "symlink", content: "s/../.."),
        Member(name: "esc", kind: "symlink", content: kelvin + "/t"),
        Member(name: "K/", kind: "dir"),
        Member(name: "K/q", kind: "file", content: "y"),
        Member(name: kelvin + "/v", kind: "symlink", content: "../esc/victim"),
    ]

    /// A link that climbs out of a name that does not exist yet (`s/s/..`),
    /// then a symlink made at that name: it would move where the first leads,
    /// out of the tree (found by fuzz-unpack).
    static let laterLinkRedirects: [Member] = [
        Member(name: "a", kind: "symlink", content: "s/s/../cafe\u{301}"),
        Member(name: "s", kind: "symlink", content: "."),
    ]

    /// Writes `members` with Python to `url`, a `.tar` (pax) or a `.zip`.
    static func write(_ members: [Member], to url: URL) throws {
        let script = """
            import io, json, sys, tarfile, zipfile
            members, path = json.loads(sys.argv[1]), sys.argv[2]
            if path.endswith(".zip"):
                with zipfile.ZipFile(path, "w") as z:
                    for name, kind, content, mode in members:
                        info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
                        info.create_system = 3
                        kinds = {"dir": 0o040000, "file": 0o100000, "symlink": 0o120000}
                        info.external_attr = (kinds[kind] | mode) << 16
                        z.writestr(info, content.encode())
            else:
                with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as t:
                    for name, kind, content, mode in members:
                        info = tarfile.TarInfo(name)
                        info.mode, info.mtime = mode, 1767225600
                        if kind == "file":
                            info.size = len(content.encode())
                            t.addfile(info, io.BytesIO(content.encode()))
                            continue
                        info.type = tarfile.DIRTYPE if kind == "dir" else tarfile.SYMTYPE
                        info.linkname = content if kind == "symlink" else ""
                        t.addfile(info)
            """
        let json = try JSONSerialization.data(withJSONObject: members.map { [$0.name, $0.kind, $0.content, $0.mode] as [Any] })
        let result = try Interop.run("python3", ["-c", script, String(decoding: json, as: UTF8.self), url.path],
                                     in: url.deletingLastPathComponent())
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// Where the kernel takes `path`, following every symlink in it, and
    /// lexically past the first name that does not exist (`readlink -m`).
    static func resolved(_ path: String) throws -> String {
        let result = try ChildProcess.run("/usr/bin/readlink", ["-m", path])
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    /// The symlinks below `root` that lead out of it.
    static func linksLeadingOut(of root: URL) throws -> [String] {
        let top = try resolved(root.path)
        var leading: [String] = []
        var pending = [root.path]
        while let directory = pending.popLast() {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                let path = directory + "/" + name
                let info = try FileManager.default.attributesOfItem(atPath: path)
                switch info[.type] as? FileAttributeType {
                case .typeDirectory?: pending.append(path)
                case .typeSymbolicLink?:
                    let target = try resolved(path)
                    if target != top, !target.hasPrefix(top + "/") { leading.append(path) }
                default: break
                }
            }
        }
        return leading
    }

    @Test(arguments: ["tar", "zip"])
    func noSymlinkLeadsOutOfTheDestination(format: String) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("escape.\(format)")
        try Self.write(Self.escapingLink, to: archive)
        let destination = directory.appending("out")

        // Unpacked or refused; if unpacked, every link stays inside.
        if (try? ArchiveUnpacker.unpack(archiveAt: archive, to: destination)) != nil {
            #expect(try Self.linksLeadingOut(of: destination) == [])
            #expect(try Disk.names(in: destination).count == 3, "K, \\u{212A} and esc are three names")
        }
    }

    @Test(arguments: ["tar", "zip"])
    func aLaterSymlinkCannotRedirectAnEarlierOneOut(format: String) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("redirect.\(format)")
        try Self.write(Self.laterLinkRedirects, to: archive)
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))
        }
        #expect(error.code == .unsafePath)
        #expect(error.entry == "s")
        #expect(try Disk.names(in: directory.url) == ["redirect.\(format)"])
    }

    @Test(arguments: ["tar", "zip"])
    func noModeChangesOutsideTheDestination(format: String) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("chmod.\(format)")
        try Self.write(Self.chmodOutside, to: archive)
        let work = directory.appending("w")
        try FileManager.default.createDirectory(at: work.appendingPathComponent("x"), withIntermediateDirectories: true)
        let victim = work.appendingPathComponent("victim")
        try Data("secret\n".utf8).write(to: victim)
        #expect(chmod(victim.path, 0o600) == 0)
        let before = try FileManager.default.attributesOfItem(atPath: victim.path)
        let destination = work.appendingPathComponent("x/out")

        _ = try? ArchiveUnpacker.unpack(archiveAt: archive, to: destination)

        let after = try FileManager.default.attributesOfItem(atPath: victim.path)
        #expect(after[.posixPermissions] as? Int == 0o600)
        #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date)
        #expect(try Data(contentsOf: victim) == Data("secret\n".utf8))
        if FileManager.default.fileExists(atPath: destination.path) {
            #expect(try Self.linksLeadingOut(of: destination) == [])
        }
    }

    /// A FileWrapper keys children by `String`, so it cannot hold both
    /// spellings: reading the archive into memory refuses the second.
    @Test(arguments: ["tar", "zip"])
    func theInMemoryReaderRefusesTheSecondSpelling(format: String) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("escape.\(format)")
        try Self.write(Self.escapingLink, to: archive)
        let error = try #require(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(contentsOf: archive) }
        #expect(error.code == .duplicateEntry)
        #expect(error.entry.map { Array($0.utf8) } == Array("K/s".utf8))
        #expect(error.description.contains("\\u{212A}"), "the other spelling is shown escaped: \(error)")
    }

    /// A manifest keeps both names as their bytes.
    @Test func aManifestListsBothSpellings() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("escape.tar")
        try Self.write(Self.escapingLink, to: archive)
        let manifest = try Manifest(reading: archive)
        let paths = Set(manifest.entries.map(\.path))
        #expect(paths.contains(Array("K/s".utf8)))
        #expect(paths.contains(Array("\(Self.kelvin)/t".utf8)))
        #expect(manifest.entry(at: Array("K/t".utf8)) == nil)
    }
}
