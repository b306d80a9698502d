import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// Manifest files written a piece at a time: the bytes are those the
/// formats have always had, and a file written to disk (or through a
/// symbolic link, or into a pipe) holds exactly what ``Manifest/encoded(as:)``
/// returns.
@Suite(.startsProcesses) struct ManifestWritingTests {
    @Test(arguments: ManifestFileFormat.allCases)
    func everyFieldIsWrittenAsBefore(format: ManifestFileFormat) throws {
        let manifest = try Self.trickyManifest()
        let text = String(decoding: manifest.encoded(as: format), as: UTF8.self)
        #expect(text == Self.expected[format], "\(text)")
    }

    @Test(arguments: ManifestFileFormat.allCases)
    func aFileWrittenInPiecesEqualsTheManifestInMemory(format: ManifestFileFormat) throws {
        let directory = try TemporaryDirectory()
        let tree = try TrickyTree.make(in: directory)
        // Enough entries for many pieces of 64 KiB.
        for index in 0..<3000 {
            try Disk.write("\(index)", to: tree.appendingPathComponent("many/\(index % 7)/file \(index)\u{7F}.txt"))
        }
        let manifest = try Manifest(contentsOf: tree)
        let expected = manifest.encoded(as: format)
        #expect(expected.count > 3 * ManifestText.pieceSize)
        let output = directory.appending("manifest.\(format.rawValue)")
        try manifest.write(as: format, toFileAt: output.path)
        #expect(try Data(contentsOf: output) == expected)
        // Written again over the first: replaced, with no temporary left beside it.
        try manifest.write(as: format, toFileAt: output.path)
        #expect(try Data(contentsOf: output) == expected)
        #expect(try Disk.names(in: directory.url).sorted() == ["Tricky.package", "manifest.\(format.rawValue)"])
    }

    @Test func aLongManifestFormattedOnEveryCoreKeepsItsOrder() throws {
        // More entries than one core formats at a time, so that the
        // entries are formatted in parts, on several cores.
        let directory = try TemporaryDirectory()
        let tree = directory.appending("Long.package")
        for index in 0..<(3 * Manifest.entriesPerPart) {
            try Disk.write("\(index)", to: tree.appendingPathComponent("\(index % 5)/file \(index).txt"))
        }
        let manifest = try Manifest(contentsOf: tree)
        let entryLines = manifest.entries.map { String(decoding: $0.encodedAsJSON(), as: UTF8.self) }

        let lines = String(decoding: manifest.encoded(as: .jsonLines), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(Array(lines.dropFirst()) == entryLines)
        let json = String(decoding: manifest.encoded(as: .json), as: UTF8.self)
        let jsonEntries = json.split(separator: "\n").filter { $0.hasPrefix("    {") }.map { line in
            String(line.dropFirst(4).dropLast(line.hasSuffix(",") ? 1 : 0))
        }
        #expect(jsonEntries == entryLines)
        for format in ManifestFileFormat.allCases {
            #expect(try Manifest(decoding: manifest.encoded(as: format), name: "long.\(format.rawValue)").entries.map(\.path) == manifest.entries.map(\.path))
        }
    }

    /// Names are scanned for bytes that need an escape eight at a time:
    /// each such byte, at each place in and across those words, must still
    /// be escaped, so that the entry reads back as the same name.
    @Test func aByteThatNeedsAnEscapeIsFoundWhereverItFalls() throws {
        let specials: [[UInt8]] = [[0x01], [0x1F], [0x20], [0x22], [0x5C], [0x7F], [0x80], [0xC3, 0xA9], [0xFF]]
        for special in specials {
            for position in 0...17 {
                let name = Array(repeating: UInt8(ascii: "a"), count: position) + special + Array(repeating: UInt8(ascii: "b"), count: 17 - position)
                let json = ManifestEntry(path: name, kind: .file).encodedAsJSON()
                // Control characters and DEL are escaped, never written raw.
                #expect(!json.contains { $0 < 0x20 || $0 == 0x7F }, "\(special) at \(position)")
                let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any], "\(special) at \(position)")
                if let text = String(validating: name, as: UTF8.self) {
                    #expect(object["path"] as? String == text, "\(special) at \(position)")
                } else {
                    #expect((object["pathBase64"] as? String).flatMap { Data(base64Encoded: $0) } == Data(name), "\(special) at \(position)")
                }
            }
        }
    }

    @Test func aSymbolicLinkIsWrittenThroughAndKept() throws {
        let directory = try TemporaryDirectory()
        let manifest = try Self.trickyManifest()
        let link = directory.appending("latest.json")
        #expect(symlink("real.json", link.path) == 0)
        try manifest.write(as: .json, toFileAt: link.path)
        var info = stat()
        #expect(lstat(link.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
        #expect(try Data(contentsOf: directory.appending("real.json")) == manifest.encoded(as: .json))
    }

    @Test func aPipeIsWrittenIntoNotReplaced() throws {
        let directory = try TemporaryDirectory()
        let manifest = try Self.trickyManifest()
        let fifo = directory.appending("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let reader = try ChildProcess.spawn(
            "/bin/sh", ["-c", "cat pipe > received"], in: directory.url, standardOutput: STDERR_FILENO, standardError: STDERR_FILENO)
        try manifest.write(as: .jsonLines, toFileAt: fifo.path)
        _ = ChildProcess.wait(for: reader)
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the pipe is still a pipe")
        #expect(try Data(contentsOf: directory.appending("received")) == manifest.encoded(as: .jsonLines))
    }

    @Test func aMissingDirectoryIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("missing/manifest.json").path
        let error = try #require(throws: FileWrapperError.self) { try Self.trickyManifest().write(as: .json, toFileAt: path) }
        #expect(error.code == .noSuchFile)
        #expect(error.path == directory.appending("missing").path)
    }

    /// Names and values that need every escape the formats have: quotes,
    /// backslashes, control characters (C0, DEL and C1), bytes that are not
    /// UTF-8, characters beyond ASCII, a time before 1970, a size beyond 32
    /// bits, a hard link, an implied directory and an entry mtree leaves out.
    static func trickyManifest() throws -> Manifest {
        let source = Manifest.Source(kind: .archive, name: "src \"name\"\n\u{E9}", format: "POSIX pax interchange format")
        var builder = ManifestBuilder(source: source)
        let quoted = Array(#"a "quote" \ back"#.utf8)
        let entries = [
            ManifestEntry(path: [], kind: .directory, permissions: 0o755, modified: FileTimestamp(seconds: 1_700_000_000, nanoseconds: 1),
                          owner: FileOwner(userID: 0, groupID: 0)),
            ManifestEntry(path: quoted, kind: .file, size: 5, permissions: 0o644, modified: FileTimestamp(seconds: -1, nanoseconds: 500_000_000),
                          owner: FileOwner(userID: 4_294_967_295, groupID: 1000), contentDigest: SHA256Digest.of("hello".utf8),
                          extendedAttributes: ["user.b": Array("b".utf8), "user.a": Array("a".utf8)]),
            ManifestEntry(path: Array("ctl\u{1}\u{1F}\u{7F}\u{85}x".utf8), kind: .file, size: 9_000_000_000, permissions: 0o600,
                          modified: FileTimestamp(seconds: 5, nanoseconds: 5), owner: FileOwner(userID: 1, groupID: 2),
                          contentDigest: SHA256Digest.of("big".utf8)),
            ManifestEntry(path: Array("tab\tnew\nline\r\u{8}\u{C}".utf8), kind: .file, size: 0, permissions: 0o755, contentDigest: SHA256Digest.of([])),
            ManifestEntry(path: Array("bad-".utf8) + [0xFF, 0xFE], kind: .file, size: 3, permissions: 0o644, contentDigest: SHA256Digest.of("bad".utf8)),
            ManifestEntry(path: Array("caf\u{E9}/\u{1F600}".utf8), kind: .symlink, permissions: 0o777, modified: FileTimestamp(seconds: 1),
                          linkTarget: Array("../".utf8) + quoted),
            ManifestEntry(path: Array("caf\u{E9}".utf8), kind: .directory, permissions: 0o7777, modified: FileTimestamp(seconds: 2), extendedAttributes: [:]),
            ManifestEntry(path: Array("odd-link".utf8), kind: .symlink, linkTarget: [0x74, 0xFF, 0x0A]),
            ManifestEntry(path: Array("dev".utf8), kind: .other, permissions: 0o644),
            ManifestEntry(path: Array("hard".utf8), kind: .hardLink, permissions: 0o644, linkTarget: quoted),
            ManifestEntry(path: Array("implied/x.txt".utf8), kind: .file, size: 1, contentDigest: SHA256Digest.of("x".utf8)),
        ]
        for entry in entries {
            try builder.add(entry)
        }
        return try builder.finish()
    }

    /// What the formats held before they were written in pieces.
    static let expected: [ManifestFileFormat: String] = [
        .json: #"""
        {
          "format": "fwk-manifest",
          "version": 1,
          "source": {"kind":"archive","name":"src \"name\"\né","format":"POSIX pax interchange format"},
          "metadataDigest": "fwk-meta-v1:473c5be9f7bfa588652f7172d83f6feaad6b35af3e589f88b2cdd63408317a63",
          "entries": [
            {"path":"","kind":"directory","mode":"0755","mtime":"1700000000.000000001","uid":0,"gid":0},
            {"path":"a \"quote\" \\ back","kind":"file","size":5,"mode":"0644","mtime":"-1.500000000","uid":4294967295,"gid":1000,"sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824","xattrs":{"user.a":"YQ==","user.b":"Yg=="}},
            {"path":"bad-\\xFF\\xFE","pathBase64":"YmFkLf/+","kind":"file","size":3,"mode":"0644","sha256":"2f05d4b689d270cafb02285f35f44866f7dc8a2d368a3f9d1124373eeab31fb1"},
            {"path":"café","kind":"directory","mode":"7777","mtime":"2.000000000","treeDigest":"fwk-tree-v1:22a181c23efec6110efc75081bdd38e97aeac95a292282f9a2da73de26449035","xattrs":{}},
            {"path":"café/😀","kind":"symlink","mode":"0777","mtime":"1.000000000","target":"../a \"quote\" \\ back"},
            {"path":"ctl\u0001\u001f\u007f\u0085x","kind":"file","size":9000000000,"mode":"0600","mtime":"5.000000005","uid":1,"gid":2,"sha256":"2a21fe6d592a19b7de898b50eb53c429608de1a66f3e9f62da19714a770553d1"},
            {"path":"dev","kind":"other","mode":"0644"},
            {"path":"hard","kind":"hardlink","mode":"0644","target":"a \"quote\" \\ back"},
            {"path":"implied","kind":"directory","treeDigest":"fwk-tree-v1:3ed1e121dfc18d982e9b630cc6059d1efb99e880533149669eff9b638225042b"},
            {"path":"implied/x.txt","kind":"file","size":1,"sha256":"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"},
            {"path":"odd-link","kind":"symlink","target":"t\\xFF\\u{A}","targetBase64":"dP8K"},
            {"path":"tab\tnew\nline\r\b\f","kind":"file","size":0,"mode":"0755","sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}
          ]
        }

        """#,
        .jsonLines: #"""
        {"format":"fwk-manifest-lines","version":1,"source":{"kind":"archive","name":"src \"name\"\né","format":"POSIX pax interchange format"},"metadataDigest":"fwk-meta-v1:473c5be9f7bfa588652f7172d83f6feaad6b35af3e589f88b2cdd63408317a63","entries":12}
        {"path":"","kind":"directory","mode":"0755","mtime":"1700000000.000000001","uid":0,"gid":0}
        {"path":"a \"quote\" \\ back","kind":"file","size":5,"mode":"0644","mtime":"-1.500000000","uid":4294967295,"gid":1000,"sha256":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824","xattrs":{"user.a":"YQ==","user.b":"Yg=="}}
        {"path":"bad-\\xFF\\xFE","pathBase64":"YmFkLf/+","kind":"file","size":3,"mode":"0644","sha256":"2f05d4b689d270cafb02285f35f44866f7dc8a2d368a3f9d1124373eeab31fb1"}
        {"path":"café","kind":"directory","mode":"7777","mtime":"2.000000000","treeDigest":"fwk-tree-v1:22a181c23efec6110efc75081bdd38e97aeac95a292282f9a2da73de26449035","xattrs":{}}
        {"path":"café/😀","kind":"symlink","mode":"0777","mtime":"1.000000000","target":"../a \"quote\" \\ back"}
        {"path":"ctl\u0001\u001f\u007f\u0085x","kind":"file","size":9000000000,"mode":"0600","mtime":"5.000000005","uid":1,"gid":2,"sha256":"2a21fe6d592a19b7de898b50eb53c429608de1a66f3e9f62da19714a770553d1"}
        {"path":"dev","kind":"other","mode":"0644"}
        {"path":"hard","kind":"hardlink","mode":"0644","target":"a \"quote\" \\ back"}
        {"path":"implied","kind":"directory","treeDigest":"fwk-tree-v1:3ed1e121dfc18d982e9b630cc6059d1efb99e880533149669eff9b638225042b"}
        {"path":"implied/x.txt","kind":"file","size":1,"sha256":"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"}
        {"path":"odd-link","kind":"symlink","target":"t\\xFF\\u{A}","targetBase64":"dP8K"}
        {"path":"tab\tnew\nline\r\b\f","kind":"file","size":0,"mode":"0755","sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}

        """#,
        .mtree: #"""
        #mtree v2.0
        # made by FileWrapperKit from kind=archive name=src\040"name"\012\303\251 format=POSIX\040pax\040interchange\040format
        . type=dir mode=0755 time=1700000000.000000001 uid=0 gid=0
        ./a\040"quote"\040\134\040back type=file mode=0644 size=5 time=-1.500000000 uid=4294967295 gid=1000 sha256digest=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
        ./bad-\377\376 type=file mode=0644 size=3 sha256digest=2f05d4b689d270cafb02285f35f44866f7dc8a2d368a3f9d1124373eeab31fb1
        ./caf\303\251 type=dir mode=7777 time=2.000000000
        ./caf\303\251/\360\237\230\200 type=link mode=0777 time=1.000000000 link=../a\040"quote"\040\134\040back
        ./ctl\001\037\177\302\205x type=file mode=0600 size=9000000000 time=5.000000005 uid=1 gid=2 sha256digest=2a21fe6d592a19b7de898b50eb53c429608de1a66f3e9f62da19714a770553d1
        # left out: ./dev is a device, FIFO or socket, which a manifest does not tell apart
        ./hard type=file mode=0644 size=5 sha256digest=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
        ./implied type=dir
        ./implied/x.txt type=file size=1 sha256digest=2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881
        ./odd-link type=link link=t\377\012
        ./tab\011new\012line\015\010\014 type=file mode=0755 size=0 sha256digest=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

        """#,
    ]
}
