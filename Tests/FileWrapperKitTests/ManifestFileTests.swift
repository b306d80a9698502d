import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// Manifest files (JSON, JSON Lines, mtree) written and read back, refused
/// when malformed, and understood by bsdtar in both directions.
@Suite(.startsProcesses) struct ManifestFileTests {
    @Test(arguments: ManifestFileFormat.allCases)
    func aTreeOnDiskRoundTrips(format: ManifestFileFormat) throws {
        let directory = try TemporaryDirectory()
        let tree = try TrickyTree.make(in: directory)
        let manifest = try Manifest(contentsOf: tree)
        #expect(manifest.entry(at: TrickyTree.notUTF8Name) != nil, "the tree holds a name that is not UTF-8")

        let data = manifest.encoded(as: format)
        #expect(ManifestFileFormat.detect(Array(data.prefix(64))) == format)
        let decoded = try Manifest(decoding: data, name: "manifest.\(format.rawValue)")

        // mtree keeps no extended attributes; everything else survives.
        let expected = format == .mtree ? try Self.withoutExtendedAttributes(manifest) : manifest
        #expect(decoded.entries.count == expected.entries.count)
        for (read, written) in zip(decoded.entries, expected.entries) {
            #expect(read == written, "\(written.displayPath)")
        }
        #expect(decoded.source == manifest.source)
        #expect(decoded.treeDigestText == manifest.treeDigestText)
        #expect(decoded.metadataDigestText == expected.metadataDigestText)
    }

    @Test func theJSONKeepsTheExactBytesOfEveryName() throws {
        let directory = try TemporaryDirectory()
        let manifest = try Manifest(contentsOf: TrickyTree.make(in: directory))
        let text = String(decoding: manifest.encoded(as: .json), as: UTF8.self)

        #expect(text.hasPrefix("{\n  \"format\": \"fwk-manifest\",\n  \"version\": 1,\n  \"source\": {\"kind\":\"bundle\","))
        #expect(text.contains(#"{"path":"line\nbreak.txt","kind":"file","size":"#))
        #expect(text.contains(#"{"path":"tab\there.txt","#))
        #expect(text.contains(#"{"path":"bad-\\xFF\\xFE.bin","pathBase64":"YmFkLf/+LmJpbg==","kind":"file""#))
        #expect(text.contains(#""target":"no/such/target""#))
        #expect(text.contains(#""xattrs":{"user.note":"aGk="}"#))
        #expect(text.contains(#""mode":"0755""#))
        #expect(text.contains(#""mtime":"-1.500000000""#))
        #expect(text.contains("\n  \"treeDigest\": \"\(manifest.treeDigestText ?? "")\",\n"))
        // One line per entry, between the header and the closing lines.
        #expect(text.split(separator: "\n").count == 7 + manifest.entries.count + 2)
    }

    @Test func onlyOurOwnFilesAreDetected() {
        for text in [#"{"format": "fwk-manifest", "version": 1}"#, " \n{ \"format\" : \"fwk-manifest\"", "{\"format\":\"fwk-manifest\""] {
            #expect(ManifestFileFormat.detect(Array(text.utf8)) == .json, "\(text)")
        }
        #expect(ManifestFileFormat.detect(Array(#"{"format":"fwk-manifest-lines","version":1}"#.utf8)) == .jsonLines)
        #expect(ManifestFileFormat.detect(Array("#mtree\n. type=dir\n".utf8)) == .mtree)
        for text in [
            #"{"name": "package.json", "format": "fwk-manifest"}"#, #"{"format": "fwk-manifest-v2"}"#, #"{"format": "zip"}"#,
            "[1, 2]", "{}", "", "{", "# mtree", "PK\u{3}\u{4}",
        ] {
            #expect(ManifestFileFormat.detect(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(throws: ManifestError.self) { try Manifest(decoding: Data(#"{"entries": []}"#.utf8), name: "plain.json") }
    }

    @Test(arguments: [
        JSONDamage(#""kind":"file""#, #""kind":"fifo""#, #""kind" is not file, directory"#),
        JSONDamage(#""sha256":"2cf24dba"#, #""sha256":"zzf24dba"#, #""sha256" is not 64 hexadecimal digits"#),
        JSONDamage(#""mode":"0644""#, #""mode":"0999""#, #""mode" is not permission bits"#),
        JSONDamage(#""mode":"0644""#, #""mode":644"#, #""mode" is not permission bits"#),
        JSONDamage(#""size":5"#, #""size":5.5"#, #""size" is not a whole number"#),
        JSONDamage(#""size":5"#, #""size":true"#, #""size" is not a whole number"#),
        JSONDamage(#""size":5"#, #""size":-5"#, #""size" is not a whole number"#),
        JSONDamage(#""uid":0,"gid":0"#, #""uid":4294967296,"gid":0"#, #""uid" or "gid" is not a 32-bit"#),
        JSONDamage(#""uid":0,"gid":0"#, #""uid":0"#, #""uid" and "gid" come together"#),
        JSONDamage(#""mtime":"1700000000.000000005""#, #""mtime":"1700000000.5""#, #""mtime" is not seconds"#),
        JSONDamage(#""path":"b.txt""#, #""path":"a.txt""#, "the tree has two entries at this path"),
        JSONDamage(#""path":"b.txt""#, #""path":"../b.txt""#, "the path leaves the tree"),
        JSONDamage(#""path":"b.txt""#, #""path":"b.txt","pathBase64":"%%""#, #""pathBase64" is not base64"#),
        JSONDamage(#""version": 1"#, #""version": 3"#, "version 3 is not one this reader knows"),
        JSONDamage(#""version": 1"#, #""version": 2"#, "version 2 is a partial listing of a tree"),
        JSONDamage(#""version": 1,"#, "", #"no "version""#),
        JSONDamage(#""kind":"bundle""#, #""kind":"disk""#, #"the source's "kind""#),
        JSONDamage(#""sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824""#,
                   #""sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9825""#,
         "the recorded tree digest does not match its entries"),
        JSONDamage(#""mtime":"1700000000.000000005""#, #""mtime":"1700000000.000000006""#, "the recorded metadata digest does not match its entries"),
        JSONDamage(#""entries": ["#, #""entrees": ["#, #"no "entries" array"#),
        JSONDamage("}\n", "", "not valid JSON"),
    ])
    func aMalformedJSONManifestIsRefused(damage: JSONDamage) throws {
        let text = String(decoding: try Self.smallManifest().encoded(as: .json), as: UTF8.self)
        #expect(text.contains(damage.original), "the damage applies")
        let broken = text.replacingOccurrences(of: damage.original, with: damage.replacement)

        let error = try #require(throws: ManifestError.self) { try Manifest(decoding: Data(broken.utf8), name: "snap.json") }
        #expect(error.file == "snap.json")
        #expect(error.description.contains(damage.problem), "\(error)")
    }

    /// Text replaced in a good JSON manifest, and what the error must say.
    struct JSONDamage: Sendable, CustomTestStringConvertible {
        var original: String
        var replacement: String
        var problem: String

        init(_ original: String, _ replacement: String, _ problem: String) {
            self.original = original
            self.replacement = replacement
            self.problem = problem
        }

        var testDescription: String { problem }
    }

    @Test func aMalformedEntryIsNamedByItsPathOrPlace() throws {
        let text = String(decoding: try Self.smallManifest().encoded(as: .json), as: UTF8.self)
        let broken = text.replacingOccurrences(of: #""mode":"0644""#, with: #""mode":"rw-""#)
        let error = try #require(throws: ManifestError.self) { try Manifest(decoding: Data(broken.utf8), name: "snap.json") }
        #expect(error.description == #"snap.json: "a.txt": entry 2: "mode" is not permission bits in octal ("0755")"#)

        let lines = String(decoding: try Self.smallManifest().encoded(as: .jsonLines), as: UTF8.self)
        let badLine = lines.replacingOccurrences(of: #""kind":"directory""#, with: #""kind":"dir""#)
        let lineError = try #require(throws: ManifestError.self) { try Manifest(decoding: Data(badLine.utf8), name: "snap.jsonl") }
        #expect(lineError.description.hasPrefix(#"snap.jsonl: ".": line 2: "kind" is not"#), "\(lineError)")
    }

    @Test func aCutOffJSONLinesManifestIsRefused() throws {
        let data = try Self.smallManifest().encoded(as: .jsonLines)
        var lines = data.split(separator: UInt8(ascii: "\n"))
        lines.removeLast()
        let cut = Data(lines.joined(separator: [UInt8(ascii: "\n")]))
        let error = try #require(throws: ManifestError.self) { try Manifest(decoding: cut, name: "snap.jsonl") }
        #expect(error.description == "snap.jsonl: the header says 3 entries but the file holds 2: it is cut off or was edited")
    }

    @Test func bsdtarReadsOurMtree() throws {
        let directory = try TemporaryDirectory()
        let tree = try TrickyTree.make(in: directory)
        let manifest = try Manifest(contentsOf: tree)
        let mtree = directory.appending("manifest.mtree")
        try manifest.encoded(as: .mtree).write(to: mtree)

        // The default (pax) writer warns that the name that is not UTF-8
        // cannot be translated for its header; nothing else may be said.
        let archive = try Self.run("/usr/bin/bsdtar", ["-cf", "/dev/null", "@" + mtree.path], in: tree)
        #expect(archive.status == 0, "\(archive.stderr)")
        for line in archive.stderr.split(separator: "\n") {
            #expect(line.contains("bad-") && line.contains("Can't translate pathname"), "\(line)")
        }
        // Packed from the mtree and unpacked again, the tree is the same.
        let tar = directory.appending("tree.tar"), unpacked = directory.appending("unpacked")
        try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: false)
        let packed = try Self.run("/usr/bin/bsdtar", ["--format=gnutar", "-cf", tar.path, "@" + mtree.path], in: tree)
        #expect(packed.status == 0 && packed.stderr.isEmpty, "\(packed.stderr)")
        let extracted = try Self.run("/usr/bin/bsdtar", ["-xpf", tar.path], in: unpacked)
        #expect(extracted.status == 0 && extracted.stderr.isEmpty, "\(extracted.stderr)")
        #expect(try Manifest(contentsOf: unpacked).treeDigestText == manifest.treeDigestText)

        let listing = try Self.run("/usr/bin/bsdtar", ["-tvf", mtree.path], in: tree)
        #expect(listing.status == 0, "\(listing.stderr)")
        let lines = listing.stdout.split(separator: "\n")
        #expect(lines.count == manifest.entries.count)
        // Columns: mode, links, owner, group, size, month, day, time, name.
        var checked = 0
        for line in lines {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count >= 9 else { continue }
            let rest = columns[8...].joined(separator: " ")
            let name = rest.components(separatedBy: " -> ")[0]
            let path = name == "." ? "" : String(name.dropFirst(2))
            guard let entry = manifest.entry(at: Array(path.utf8)) else { continue }
            #expect(columns[0].first == (entry.kind == .directory ? "d" : entry.kind == .symlink ? "l" : "-"), "\(line)")
            if entry.kind == .file { #expect(Int64(columns[4]) == entry.size, "\(line)") }
            if entry.kind == .symlink { #expect(rest.hasSuffix(" -> " + String(decoding: entry.linkTarget ?? [], as: UTF8.self)), "\(line)") }
            checked += 1
        }
        #expect(checked >= 10, "most names are plain enough to find in the listing")
    }

    @Test func anMtreeWrittenByBsdtarIsRead() throws {
        let directory = try TemporaryDirectory()
        let tree = try TrickyTree.make(in: directory)
        let manifest = try Manifest(contentsOf: tree)
        let output = directory.appending("out.mtree")
        let written = try Self.run("/usr/bin/bsdtar", ["--format=mtree", "-cf", output.path, "--options=mtree:sha256", "."], in: tree)
        try #require(written.status == 0, "\(written.stderr)")

        let read = try Manifest(decoding: Data(contentsOf: output), name: "out.mtree")
        #expect(read.entries.map(\.path) == manifest.entries.map(\.path))
        for (entry, original) in zip(read.entries, manifest.entries) {
            #expect(entry.kind == original.kind, "\(original.displayPath)")
            #expect(entry.size == original.size, "\(original.displayPath)")
            #expect(entry.contentDigest == original.contentDigest, "\(original.displayPath)")
            #expect(entry.linkTarget == original.linkTarget, "\(original.displayPath)")
            #expect(entry.permissions == original.permissions, "\(original.displayPath)")
            #expect(entry.owner == original.owner, "\(original.displayPath)")
            // libarchive writes 5 ns as `.5`; read as a count of nanoseconds, it is.
            #expect(entry.modified == original.modified, "\(original.displayPath)")
        }
        #expect(read.treeDigestText == manifest.treeDigestText)
    }

    @Test func commonMtreeIsRead() throws {
        let text = #"""
        #mtree
        # written by hand, v1 style
        /set type=file uid=0 gid=0 mode=0644
        .               type=dir mode=0755 time=1700000000.5
            read\040me  size=5 \
                        sha256=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
            bin         type=dir
                tool    mode=0755 time=1700000000 nlink=1 flags=none
                sh      type=link link=/bin/b\141sh
        # ./bin
            ..
        /unset uid
            dev         type=char device=1,3
        ./etc/x\tz      mode=0600 tags=a,b
        ./etc/x\tz      size=7 gid=5
        ..
        """#
        let manifest = try Manifest(decoding: Data(text.utf8), name: "hand.mtree")
        #expect(manifest.entries.map(\.displayPath) == [".", "bin", "bin/sh", "bin/tool", "dev", "etc", "etc/x\\u{9}z", "read me"])
        #expect(manifest.source == Manifest.Source(kind: .bundle, name: "hand.mtree"))
        let root = manifest.root
        #expect(root.permissions == 0o755 && root.modified == FileTimestamp(seconds: 1_700_000_000, nanoseconds: 5))
        let readMe = try #require(manifest.entry(at: Array("read me".utf8)))
        #expect(readMe.size == 5 && readMe.contentDigest == SHA256Digest.of("hello".utf8) && readMe.owner == FileOwner(userID: 0, groupID: 0))
        #expect(manifest.entry(at: Array("bin/tool".utf8))?.permissions == 0o755)
        #expect(manifest.entry(at: Array("bin/sh".utf8))?.linkTarget == Array("/bin/bash".utf8))
        #expect(manifest.entry(at: Array("dev".utf8))?.kind == .other)
        #expect(manifest.entry(at: Array("dev".utf8))?.owner == nil, "only gid is known after /unset uid")
        // As in libarchive, a later line brings the defaults again: mode=0644 wins.
        let merged = try #require(manifest.entry(at: Array("etc/x\tz".utf8)))
        #expect(merged.permissions == 0o644 && merged.size == 7 && merged.owner == nil)
        #expect(manifest.entry(at: Array("etc".utf8))?.permissions == nil, "an implied directory")
    }

    @Test(arguments: [
        ("#mtree\n./a type=door\n", "hand.mtree: \"a\": line 2: type=door is not file, dir, link"),
        ("#mtree\n./a mode=u+rw\n", "line 2: mode= is not permission bits"),
        ("#mtree\n./a time=soon\n", "line 2: time= is not seconds"),
        ("#mtree\n./a size=-1\n", "line 2: size= is not a number of bytes"),
        ("#mtree\n./a sha256digest=abc\n", "line 2: sha256digest= is not 64 hexadecimal digits"),
        ("#mtree\n./a uid=-1 gid=0\n", "line 2: uid= or gid= is not"),
        ("#mtree\n/sett x=1\n", "line 2: \"/sett\" is neither /set nor /unset"),
        ("#mtree\n./a\n./a/b\n", "the entry lies below \"a\", which is a file"),
        ("#mtree\n./a\\000b\n", "holds a NUL byte"),
        ("#mtree\n../a\n", "the path leaves the tree"),
    ])
    func malformedMtreeIsRefused(text: String, problem: String) {
        let error = #expect(throws: ManifestError.self) { try Manifest(decoding: Data(text.utf8), name: "hand.mtree") }
        #expect(error?.description.contains(problem) == true, "\(String(describing: error))")
    }

    @Test func hardLinksAndOtherEntriesInEachFormat() throws {
        var builder = ManifestBuilder(source: Manifest.Source(kind: .archive, name: "doc.tar", format: "GNU tar format"))
        let digest = SHA256Digest.of("hello".utf8)
        try builder.add(ManifestEntry(path: Array("a".utf8), kind: .file, size: 5, permissions: 0o644, contentDigest: digest))
        try builder.add(ManifestEntry(path: Array("b".utf8), kind: .hardLink, permissions: 0o644, linkTarget: Array("a".utf8), contentDigest: digest))
        try builder.add(ManifestEntry(path: Array("fifo".utf8), kind: .other, permissions: 0o600))
        let manifest = try builder.finish()

        for format in [ManifestFileFormat.json, .jsonLines] {
            let decoded = try Manifest(decoding: manifest.encoded(as: format), name: "m")
            #expect(decoded.entries == manifest.entries)
            #expect(decoded.source == manifest.source)
        }
        let mtree = String(decoding: manifest.encoded(as: .mtree), as: UTF8.self)
        #expect(mtree.hasPrefix("#mtree v2.0\n# made by FileWrapperKit from kind=archive name=doc.tar format=GNU\\040tar\\040format\n"))
        #expect(mtree.contains("./b type=file mode=0644 size=5 sha256digest=\(digest.hex)\n"), "a hard link as the file it names")
        #expect(mtree.contains("# left out: ./fifo is a device, FIFO or socket"))
        let decoded = try Manifest(decoding: Data(mtree.utf8), name: "m.mtree")
        #expect(decoded.source == manifest.source)
        #expect(decoded.entries.map(\.displayPath) == [".", "a", "b"])
        #expect(decoded.entry(at: Array("b".utf8))?.kind == .file)
    }

    @Test func arbitraryDamageIsAnErrorNotACrash() throws {
        let originals = try ManifestFileFormat.allCases.map { try Self.smallManifest().encoded(as: $0) }
        var generator = SplitMix64(seed: 280)
        for round in 0..<3000 {
            var bytes = [UInt8](originals[round % originals.count])
            for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: position)
                default: bytes.insert(Array("\\/.=#\n9-\"{}".utf8).randomElement(using: &generator) ?? 0, at: position)
                }
            }
            _ = try? Manifest(decoding: Data(bytes), name: "fuzz")
        }
    }

    // MARK: Helpers

    /// A manifest of a root, `a.txt` and `b.txt`, with everything known.
    static func smallManifest() throws -> Manifest {
        var builder = ManifestBuilder(source: Manifest.Source(kind: .bundle, name: "Small"))
        let owner = FileOwner(userID: 0, groupID: 0)
        let time = FileTimestamp(seconds: 1_700_000_000, nanoseconds: 5)
        try builder.add(ManifestEntry(path: [], kind: .directory, permissions: 0o755, modified: time, owner: owner, extendedAttributes: [:]))
        for name in ["a.txt", "b.txt"] {
            try builder.add(ManifestEntry(
                path: Array(name.utf8), kind: .file, size: 5, permissions: 0o644, modified: time, owner: owner,
                contentDigest: SHA256Digest.of("hello".utf8), extendedAttributes: [:]))
        }
        return try builder.finish()
    }

    /// `manifest` as mtree keeps it: without extended attributes.
    static func withoutExtendedAttributes(_ manifest: Manifest) throws -> Manifest {
        var builder = ManifestBuilder(source: manifest.source)
        for var entry in manifest.entries {
            entry.extendedAttributes = nil
            try builder.add(entry)
        }
        return try builder.finish()
    }

    /// Runs a program in `directory` and returns its exit status and output (``ChildProcess``).
    static func run(_ executable: String, _ arguments: [String], in directory: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try ChildProcess.run(executable, arguments, in: directory)
        return (result.status, result.stdout, result.stderr)
    }
}

/// A tree on disk with every kind of name and entry a manifest must keep apart.
enum TrickyTree {
    /// A name that is not UTF-8: `bad-`, 0xFF 0xFE, `.bin`.
    static let notUTF8Name: [UInt8] = Array("bad-".utf8) + [0xFF, 0xFE] + Array(".bin".utf8)

    /// Makes the tree in `directory` and returns its root.
    static func make(in directory: TemporaryDirectory) throws -> URL {
        let root = directory.appending("Tricky.package")
        try Disk.write("deep\n", to: root.appendingPathComponent("docs/a/b/deep.txt"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try Disk.write("#!/bin/sh\necho hi\n", to: root.appendingPathComponent("run.sh"), mode: 0o755)
        for name in ["line\nbreak.txt", "tab\there.txt", "with space.txt", "hash#name", "equals=name", "back\\slash", "caf\u{E9}-\u{FC}n\u{EF}code.txt", "star*?[x]"] {
            try Disk.write(name, to: root.appendingPathComponent(name))
        }
        let noted = root.appendingPathComponent("with space.txt")
        try Disk.setXattr("user.note", "hi", on: noted)
        Disk.setModificationTime(noted, seconds: -1, nanoseconds: 500_000_000)
        Disk.setModificationTime(root.appendingPathComponent("run.sh"), seconds: 1_700_000_000, nanoseconds: 123_456_789)
        Disk.setModificationTime(root.appendingPathComponent("tab\there.txt"), seconds: 1_600_000_000, nanoseconds: 5)
        #expect(symlink("docs/a/b/deep.txt", root.appendingPathComponent("link-to-file").path) == 0)
        #expect(symlink("no/such/target", root.appendingPathComponent("dangling").path) == 0)
        #expect(symlink("with space.txt", root.appendingPathComponent("odd link").path) == 0)
        let fd = open(root.path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        let created = (notUTF8Name + [0]).withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { openat(fd, $0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        try #require(created >= 0)
        _ = write(created, "not UTF-8", 9)
        close(created)
        return root
    }
}
