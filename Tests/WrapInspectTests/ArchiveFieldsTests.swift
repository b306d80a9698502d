import Foundation
import Testing
import TestSupport

/// What archives hold, as docs/tree-digest.md specifies it (issue 22,
/// item 8), through `wrapinspect digest` and `snapshot` on archives that
/// other tools wrote: zip times that do not depend on the reader's `TZ`,
/// permissions a FAT zip does not record left unknown, pax attributes
/// counted, hard-link chains and the links refused, owners over 32 bits,
/// and a file member named as a directory. Each digest is also checked
/// against `Tools/tree_digest.py --archive`, written from that page alone.
@Suite("what archives hold")
struct ArchiveFieldsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a shell command line in `directory`; fails the test if it fails.
    static func shell(_ command: String, in directory: URL) throws {
        let result = try ChildProcess.run("/bin/sh", ["-c", "umask 022 && \(command)"], in: directory, environment: ["LC_ALL": "C.UTF-8"])
        try #require(result.status == 0, "\(command): \(result.stderr)")
    }

    /// Runs a Python 3 program in `directory`.
    static func python(_ program: String, in directory: URL) throws {
        try shell("python3 - <<'EOF'\n\(program)\nEOF", in: directory)
    }

    /// The lines of `wrapinspect digest --metadata PATH` in time zone
    /// `zone`, checked against the second implementation's for an archive.
    static func digests(
        _ path: String, in directory: URL, zone: String = "UTC", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Substring] {
        let result = try WrapInspectProcess.run(["digest", "--metadata", path], in: directory, environment: ["TZ": zone])
        try #require(result.status == 0, "\(path): \(result.stderr)", sourceLocation: sourceLocation)
        if path.hasSuffix(".zip") || path.hasSuffix(".tar") {
            #expect(try secondImplementation(path, in: directory).stdoutLines == result.stdoutLines,
                    "Tools/tree_digest.py reads \(path) otherwise", sourceLocation: sourceLocation)
        }
        return result.stdoutLines
    }

    /// What `Tools/tree_digest.py --metadata --archive PATH` prints.
    static func secondImplementation(_ path: String, in directory: URL) throws -> CommandResult {
        let script = repository.appendingPathComponent("Tools/tree_digest.py").path
        return try ChildProcess.run("/usr/bin/env", ["python3", script, "--metadata", "--archive", path], in: directory)
    }

    /// Checks that `wrapinspect digest` and the second implementation both
    /// refuse the archive at `path`, ours naming `entry`.
    static func expectRefused(_ path: String, naming entry: String, in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try WrapInspectProcess.run(["digest", path], in: directory)
        #expect(result.status != 0 && result.stderr.contains("\"\(entry)\""), "\(path): \(result.stderr)", sourceLocation: sourceLocation)
        let second = try secondImplementation(path, in: directory)
        #expect(second.status == 1 && second.stderr.contains("refused"), "tree_digest.py: \(second.stderr)", sourceLocation: sourceLocation)
    }

    /// The entries of `wrapinspect snapshot PATH` (JSON Lines) by path, as JSON objects.
    static func entries(_ path: String, in directory: URL, zone: String = "UTC") throws -> [String: [String: Any]] {
        let result = try WrapInspectProcess.run(["snapshot", path, "-o", "-", "--format", "jsonl"], in: directory, environment: ["TZ": zone])
        try #require(result.status == 0, "\(path): \(result.stderr)")
        var entries: [String: [String: Any]] = [:]
        for line in result.stdoutLines.dropFirst() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            entries[try #require(object["path"] as? String)] = object
        }
        return entries
    }

    /// A small tree in `directory/source`: a file, an executable, a
    /// directory, each modified at 2024-03-05 23:30:10 UTC (already March 6
    /// in Tokyo), a whole even second, so that every time field holds it.
    static func makeSource(in directory: URL) throws {
        try shell("""
            mkdir -p source/dir && printf 'hello\\n' > source/a.txt && printf '#!/bin/sh\\n' > source/dir/run.sh \
            && chmod 755 source/dir/run.sh && touch -d @1709681410 source/a.txt source/dir/run.sh source/dir source
            """, in: directory)
    }

    static let tokyo = "Asia/Tokyo"

    // MARK: - zip times

    static let dosTimeZips: [(name: String, script: String)] = [
        ("Info-ZIP zip -X", "cd source && zip -qrX ../dos.zip ."),
        ("Python zipfile", """
            python3 -c 'import zipfile
            with zipfile.ZipFile("dos.zip", "w") as z:
                for name in ["a.txt", "dir", "dir/run.sh"]: z.write("source/" + name, name)'
            """),
    ]

    /// A zip with MS-DOS times only: its digests are the same in UTC and
    /// in Tokyo, and its manifest has no times (libarchive reads the DOS
    /// fields in local time: 9 hours apart).
    @Test(arguments: dosTimeZips.map(\.name))
    func dosTimesDigestAlikeInEveryTimeZone(tool: String) throws {
        let directory = try TemporaryDirectory()
        try Self.makeSource(in: directory.url)
        try Self.shell(try #require(Self.dosTimeZips.first { $0.name == tool }).script, in: directory.url)
        let utc = try Self.digests("dos.zip", in: directory.url, zone: "UTC")
        #expect(utc.count == 2)
        #expect(try Self.digests("dos.zip", in: directory.url, zone: Self.tokyo) == utc, "the digest depends on TZ")
        let entries = try Self.entries("dos.zip", in: directory.url, zone: Self.tokyo)
        #expect(entries["a.txt"]?["mtime"] == nil && entries["dir/run.sh"]?["mtime"] == nil, "a DOS time is no moment: \(entries)")
        #expect(entries["dir/run.sh"]?["mode"] as? String == "0755", "the Unix mode is still read")
    }

    /// 7-Zip's zip keeps the time in an NTFS field (libarchive 3.6.2
    /// ignores it and reads the DOS time in local time); Info-ZIP's in a
    /// UT field. Read in Tokyo, both give the moment, and one metadata digest.
    @Test func ntfsAndExtendedTimestampsGiveOneDigest() throws {
        let directory = try TemporaryDirectory()
        try Self.makeSource(in: directory.url)
        try Self.shell("cd source && zip -qr ../infozip.zip . && 7z a -tzip ../7zip.zip . > /dev/null", in: directory.url)
        let infozip = try Self.digests("infozip.zip", in: directory.url, zone: Self.tokyo)
        #expect(try Self.digests("7zip.zip", in: directory.url, zone: Self.tokyo) == infozip)
        let entries = try Self.entries("7zip.zip", in: directory.url, zone: Self.tokyo)
        #expect(entries["a.txt"]?["mtime"] as? String == "1709681410.000000000")
    }

    // MARK: - zip permissions

    /// Python's zipfile with `create_system=0` writes what Windows does:
    /// host 0, MS-DOS attributes only. The permissions are unknown, so a
    /// read-only flag (libarchive: 0444 instead of 0664) changes no digest,
    /// and the manifest has no modes.
    @Test func fatZipPermissionsAreUnknown() throws {
        let directory = try TemporaryDirectory()
        try Self.python("""
            import zipfile
            for name, attributes in [("plain.zip", 0x20), ("read-only.zip", 0x21)]:
                with zipfile.ZipFile(name, "w") as z:
                    for member, data in [("a.txt", b"hello\\n"), ("run.sh", b"#!/bin/sh\\n")]:
                        info = zipfile.ZipInfo(member, (2024, 3, 5, 23, 30, 10))
                        info.create_system = 0
                        info.external_attr = attributes
                        z.writestr(info, data)
                    info = zipfile.ZipInfo("dir/", (2024, 3, 5, 23, 30, 10))
                    info.create_system = 0
                    info.external_attr = 0x10
                    z.writestr(info, b"")
            """, in: directory.url)
        let plain = try Self.digests("plain.zip", in: directory.url)
        #expect(try Self.digests("read-only.zip", in: directory.url) == plain)
        let entries = try Self.entries("read-only.zip", in: directory.url)
        #expect(entries.count == 4)
        #expect(entries.values.allSatisfy { $0["mode"] == nil && $0["mtime"] == nil }, "\(entries)")
        #expect(entries["dir"]?["kind"] as? String == "directory")
        let dump = try WrapInspectProcess.run(["dump", "read-only.zip"], in: directory.url)
        #expect(dump.stdout.contains("-?????????"), "dump shows unknown bits: \(dump.stdout)")
    }

    // MARK: - pax attributes

    static let attributeArchivers: [(name: String, script: String)] = [
        ("GNU tar --xattrs", "tar --xattrs --format=pax -C source -cf archive.tar ."),
        ("bsdtar pax", "bsdtar --format pax -cf archive.tar -C source ."),
    ]

    /// A pax archive of a tree with `user.*` attributes keeps its times to
    /// the nanosecond, modes, owners and attributes: its metadata digest is
    /// the tree's. A `security.` or other attribute does not count.
    @Test(arguments: attributeArchivers.map(\.name))
    func paxAttributesCount(tool: String) throws {
        let directory = try TemporaryDirectory()
        try Self.makeSource(in: directory.url)
        let source = directory.appending("source")
        try Disk.setXattr("user.note", "hello", on: source.appendingPathComponent("a.txt"))
        try Disk.setXattr("user.dir", "d", on: source.appendingPathComponent("dir"))
        Disk.setModificationTime(source.appendingPathComponent("a.txt"), seconds: 1_709_681_410, nanoseconds: 123_456_789)
        try Self.shell(try #require(Self.attributeArchivers.first { $0.name == tool }).script, in: directory.url)
        let entries = try Self.entries("archive.tar", in: directory.url)
        #expect(entries["a.txt"]?["xattrs"] as? [String: String] == ["user.note": "aGVsbG8="], "\(entries)")
        #expect(try Self.digests("archive.tar", in: directory.url) == Self.digests("source", in: directory.url))
    }

    // MARK: - hard links

    /// `c` names `b`, which names `a`: one file three times, as three
    /// copies are in the tree digest.
    @Test func hardLinkChainIsOneFile() throws {
        let directory = try TemporaryDirectory()
        try Self.python("""
            import io, tarfile
            def add(t, name, kind=tarfile.REGTYPE, data=b"", link=""):
                info = tarfile.TarInfo(name)
                info.type, info.size, info.linkname, info.mtime, info.mode = kind, len(data), link, 1700000000, 0o755
                t.addfile(info, io.BytesIO(data))
            with tarfile.open("chain.tar", "w", format=tarfile.PAX_FORMAT) as t:
                add(t, "a", data=b"hello\\n"); add(t, "b", tarfile.LNKTYPE, link="a"); add(t, "c", tarfile.LNKTYPE, link="b")
            with tarfile.open("copies.tar", "w", format=tarfile.PAX_FORMAT) as t:
                for name in "abc": add(t, name, data=b"hello\\n")
            """, in: directory.url)
        #expect(try Self.digests("chain.tar", in: directory.url).first == Self.digests("copies.tar", in: directory.url).first)
        let entries = try Self.entries("chain.tar", in: directory.url)
        #expect(entries["c"]?["kind"] as? String == "hardlink" && entries["c"]?["size"] as? Int == 6)
    }

    /// A hard link that names a later member or a directory is refused,
    /// naming the link.
    @Test(arguments: ["forward", "directory"])
    func hardLinkToWhatIsNotAnEarlierFileIsRefused(shape: String) throws {
        let directory = try TemporaryDirectory()
        try Self.python("""
            import io, tarfile
            with tarfile.open("links.tar", "w", format=tarfile.PAX_FORMAT) as t:
                link = tarfile.TarInfo("b"); link.type = tarfile.LNKTYPE; link.linkname = "a"
                target = tarfile.TarInfo("a")
                if "\(shape)" == "forward":
                    target.size = 6
                    t.addfile(link); t.addfile(target, io.BytesIO(b"hello\\n"))
                else:
                    target.type = tarfile.DIRTYPE
                    t.addfile(target); t.addfile(link)
            """, in: directory.url)
        try Self.expectRefused("links.tar", naming: "b", in: directory.url)
    }

    // MARK: - owners

    /// Python writes pax `uid` records; an ID over 32 bits makes the owner
    /// unknown (it was cut to its low 32 bits), 4294967295 is kept.
    @Test func ownerOver32BitsIsUnknown() throws {
        let directory = try TemporaryDirectory()
        try Self.python("""
            import io, tarfile
            with tarfile.open("owners.tar", "w", format=tarfile.PAX_FORMAT) as t:
                for name, uid in [("large", 5000000000), ("largest", 4294967295)]:
                    info = tarfile.TarInfo(name); info.size = 2; info.uid = uid; info.gid = 20
                    t.addfile(info, io.BytesIO(b"hi"))
            """, in: directory.url)
        _ = try Self.digests("owners.tar", in: directory.url)
        let entries = try Self.entries("owners.tar", in: directory.url)
        #expect(entries["large"] != nil && entries["large"]?["uid"] == nil && entries["large"]?["gid"] == nil, "\(entries)")
        #expect(entries["largest"]?["uid"] as? Int == 4_294_967_295 && entries["largest"]?["gid"] as? Int == 20)
    }

    // MARK: - names ending in "/"

    /// A tar type 0 member named `x/` without contents is a directory; with
    /// contents, a tar or zip member so named is refused, naming it.
    @Test func fileMemberNamedAsDirectory() throws {
        let directory = try TemporaryDirectory()
        try Self.python("""
            import io, tarfile, zipfile
            def tar(path, kind, data):
                with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as t:
                    info = tarfile.TarInfo("x/"); info.type = kind; info.size = len(data); info.mode = 0o755; info.mtime = 1700000000
                    t.addfile(info, io.BytesIO(data))
            tar("file.tar", tarfile.REGTYPE, b"")
            tar("directory.tar", tarfile.DIRTYPE, b"")
            tar("contents.tar", tarfile.REGTYPE, b"data")
            with zipfile.ZipFile("contents.zip", "w") as z:
                info = zipfile.ZipInfo("x/", (2024, 3, 5, 23, 30, 10)); info.create_system = 3; info.external_attr = 0o100644 << 16
                z.writestr(info, b"data")
            """, in: directory.url)
        #expect(try Self.digests("file.tar", in: directory.url) == Self.digests("directory.tar", in: directory.url))
        #expect(try Self.entries("file.tar", in: directory.url)["x"]?["kind"] as? String == "directory")
        for archive in ["contents.tar", "contents.zip"] {
            try Self.expectRefused(archive, naming: "x/", in: directory.url)
        }
    }
}
