import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// The tree and metadata digests as `docs/tree-digest.md` specifies them,
/// checked against its worked example and against the independent
/// implementation in `Tools/tree_digest.py`.
@Suite(.startsProcesses) struct TreeDigestTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The digests the worked example of `docs/tree-digest.md` states, by path.
    static let example: (tree: [String: String], metadata: [String: String]) = (
        tree: [
            "": "dc7df8ebb1c65fd86a5c8e4437b4dfb6fb6c793e6896d8f64a75788000e8af2d",
            "sub": "18ac3e7343f016890c510e93f935261169d9e3f565436429830faf0934f4f8e4",
        ],
        metadata: [
            "": "a1d37a10318d622dbda3b3a062c97b278dd812eae8616f3ef501b2beb1de225e",
            "hello.txt": "cabe358d4e187174a87bf6884333959e68b701df2543d78b7b76dd634a9b38b5",
            "link": "02102c6dd8cc0803706a4cb8aebe829779684adf71238154896186bdddcac117",
            "run.sh": "407b57608214837de506d729ebf07f41efba749f1ae58bdb1f78cf032f38bf7e",
            "sub": "87a6903a0d7e3a422790d77f2744e3852fa3172cc72c9c5898ac636e704698c1",
        ])

    @Test func theWorkedExampleOfTheDocumentHolds() throws {
        let time = FileTimestamp(seconds: 1_700_000_000, nanoseconds: 250_000_000)
        let owner = FileOwner(userID: 501, groupID: 20)
        func entry(_ path: String, _ kind: ManifestEntry.Kind, _ mode: UInt16) -> ManifestEntry {
            ManifestEntry(path: Array(path.utf8), kind: kind, permissions: mode, modified: time, owner: owner, extendedAttributes: [:])
        }
        var builder = ManifestBuilder(source: Manifest.Source(kind: .fileWrapper, name: "example"))
        try builder.add(entry("", .directory, 0o755))
        var hello = entry("hello.txt", .file, 0o644)
        hello.contentDigest = SHA256Digest.of("hello\n".utf8)
        hello.extendedAttributes = ["user.note": Array("hi".utf8)]
        try builder.add(hello)
        var link = entry("link", .symlink, 0o777)
        link.linkTarget = Array("hello.txt".utf8)
        link.extendedAttributes = nil
        try builder.add(link)
        var run = entry("run.sh", .file, 0o755)
        run.contentDigest = SHA256Digest.of("#!/bin/sh\necho hi\n".utf8)
        try builder.add(run)
        try builder.add(entry("sub", .directory, 0o700))
        let manifest = try builder.finish()

        try Self.expectExampleDigests(manifest)
        #expect(TreeDigest.node(hello)?.hex == "3f27da5aeb9aa722ad24201678c1294c942a7423b7ddff078fa0fdc0326b6551")
        #expect(TreeDigest.node(link)?.hex == "f6cf3fb19f2fccf749b82a421d9598f5a34895054ea5489f3d381d86b04ab214")
        #expect(TreeDigest.node(run)?.hex == "171e056d380b431ff5ae22484a35a24beedf1bb970917631c07d3f2ce6fbbd05")

        // The page states these very values.
        let page = try String(contentsOf: Self.repository.appendingPathComponent("docs/tree-digest.md"), encoding: .utf8)
        for digest in Array(Self.example.tree.values) + Array(Self.example.metadata.values) + [
            "3f27da5aeb9aa722ad24201678c1294c942a7423b7ddff078fa0fdc0326b6551",
            "f6cf3fb19f2fccf749b82a421d9598f5a34895054ea5489f3d381d86b04ab214",
            "171e056d380b431ff5ae22484a35a24beedf1bb970917631c07d3f2ce6fbbd05",
        ] {
            #expect(page.contains(digest), "\(digest)")
        }
        #expect(page.contains("fwk-tree-v1:" + (Self.example.tree[""] ?? "")))
        #expect(page.contains("fwk-meta-v1:" + (Self.example.metadata[""] ?? "")))
    }

    @Test func theWorkedExampleBuiltOnDiskHasTheSameDigestsInSwiftAndPython() throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("example")
        try Disk.write("hello\n", to: root.appendingPathComponent("hello.txt"), mode: 0o644)
        try Disk.setXattr("user.note", "hi", on: root.appendingPathComponent("hello.txt"))
        try Disk.write("#!/bin/sh\necho hi\n", to: root.appendingPathComponent("run.sh"), mode: 0o755)
        #expect(symlink("hello.txt", root.appendingPathComponent("link").path) == 0)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: false)
        chmod(root.appendingPathComponent("sub").path, 0o700)
        chmod(root.path, 0o755)
        for name in ["hello.txt", "run.sh", "link", "sub", ""] {
            let url = name.isEmpty ? root : root.appendingPathComponent(name)
            #expect(lchown(url.path, 501, 20) == 0)
            Disk.setModificationTime(url, seconds: 1_700_000_000, nanoseconds: 250_000_000)
        }

        try Self.expectExampleDigests(Manifest(contentsOf: root))
        let python = try Self.pythonDigests(of: root)
        #expect(python == ["fwk-tree-v1:" + (Self.example.tree[""] ?? ""), "fwk-meta-v1:" + (Self.example.metadata[""] ?? "")])
    }

    @Test func swiftAndPythonAgreeOnATrickyTree() throws {
        let directory = try TemporaryDirectory()
        let tree = try TrickyTree.make(in: directory)
        let manifest = try Manifest(contentsOf: tree)
        let python = try Self.pythonDigests(of: tree)
        #expect(python == [manifest.treeDigestText ?? "none", manifest.metadataDigestText])

        // A flat file and a symbolic link given as the root.
        for name in ["run.sh", "dangling"] {
            let url = tree.appendingPathComponent(name)
            #expect(try Self.pythonDigests(of: url) == [Manifest(contentsOf: url).treeDigestText ?? "none", Manifest(contentsOf: url).metadataDigestText])
        }
    }

    @Test func swiftAndPythonAgreeOnALargeUnevenTree() throws {
        // Enough entries that the directories' digests are computed in
        // subtrees cut out of the tree, a big branch cut twice over, and
        // the directories above them finished afterwards.
        let directory = try TemporaryDirectory()
        let root = directory.appending("Uneven.package")
        for index in 0..<2400 {
            try Disk.write("\(index)\n", to: root.appendingPathComponent("big/\(index % 3)/\(index % 11)/file \(index).txt"))
        }
        for index in 0..<300 {
            try Disk.write("\(index)\n", to: root.appendingPathComponent("small/\(index % 4)/file \(index).txt"), mode: 0o755)
        }
        try Disk.write("top\n", to: root.appendingPathComponent("top.txt"))
        try Disk.setXattr("user.note", "kept", on: root.appendingPathComponent("big/1"))
        #expect(symlink("../top.txt", root.appendingPathComponent("big/link").path) == 0)

        let manifest = try Manifest(contentsOf: root)
        #expect(try Self.pythonDigests(of: root) == [manifest.treeDigestText ?? "none", manifest.metadataDigestText])
        // Only a directory keeps a tree digest; every entry has a metadata digest.
        for entry in manifest.entries {
            #expect((entry.treeDigest != nil) == (entry.kind == .directory), "\(entry.displayPath)")
            #expect(entry.metadataDigest != nil, "\(entry.displayPath)")
        }
    }

    @Test func theTreeDigestCoversContentsNamesTargetsAndTheExecuteBitOnly() throws {
        let directory = try TemporaryDirectory()
        let tree = try TrickyTree.make(in: directory)
        let file = tree.appendingPathComponent("docs/a/b/deep.txt")
        let original = try Manifest(contentsOf: tree)
        func digests() throws -> (tree: String?, metadata: String) {
            let manifest = try Manifest(contentsOf: tree)
            return (manifest.treeDigestText, manifest.metadataDigestText)
        }

        // Each change alters the tree digest, and undoing it restores it.
        let changes: [(String, () throws -> Void, () throws -> Void)] = [
            ("one byte", { try Disk.write("deeP\n", to: file) }, { try Disk.write("deep\n", to: file) }),
            ("one name", { try FileManager.default.moveItem(at: file, to: file.deletingLastPathComponent().appendingPathComponent("deep.txT")) },
             { try FileManager.default.moveItem(at: file.deletingLastPathComponent().appendingPathComponent("deep.txT"), to: file) }),
            ("one link target", { try Self.relink(tree.appendingPathComponent("dangling"), to: "no/such/targeT") },
             { try Self.relink(tree.appendingPathComponent("dangling"), to: "no/such/target") }),
            ("the execute bit", { chmod(file.path, 0o744) }, { chmod(file.path, 0o644) }),
        ]
        for (what, change, undo) in changes {
            try change()
            #expect(try digests().tree != original.treeDigestText, "\(what)")
            try undo()
            #expect(try digests().tree == original.treeDigestText, "\(what) undone")
        }

        // Times and other permission bits change only the metadata digest.
        let unchanged: [(String, () -> Void)] = [
            ("the modification time", { Disk.setModificationTime(file, seconds: 1_000, nanoseconds: 1) }),
            ("a permission bit other than execute", { chmod(file.path, 0o600) }),
            ("a directory's permissions", { chmod(tree.appendingPathComponent("docs").path, 0o711) }),
        ]
        var metadata = try digests().metadata
        for (what, change) in unchanged {
            change()
            let now = try digests()
            #expect(now.tree == original.treeDigestText, "\(what)")
            #expect(now.metadata != metadata, "\(what)")
            metadata = now.metadata
        }
    }

    @Test func anUnhashedTreeHasNoTreeDigestButAMetadataDigest() throws {
        let directory = try TemporaryDirectory()
        let tree = try TrickyTree.make(in: directory)
        let hashed = try Manifest(contentsOf: tree)
        let unhashed = try Manifest(contentsOf: tree, hashingContents: false)
        #expect(unhashed.treeDigest == nil && unhashed.entry(at: Array("empty".utf8))?.treeDigest != nil)
        #expect(unhashed.metadataDigestText == hashed.metadataDigestText)
        let json = String(decoding: unhashed.encoded(as: .json), as: UTF8.self)
        #expect(!json.contains("\n  \"treeDigest\""))
        #expect(try Manifest(decoding: Data(json.utf8), name: "unhashed.json").entries == unhashed.entries)
    }

    // MARK: Helpers

    static func expectExampleDigests(_ manifest: Manifest, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (path, digest) in example.tree {
            #expect(manifest.entry(at: Array(path.utf8))?.treeDigest?.hex == digest, "tree digest of \(path)", sourceLocation: sourceLocation)
        }
        for (path, digest) in example.metadata {
            #expect(manifest.entry(at: Array(path.utf8))?.metadataDigest?.hex == digest, "metadata digest of \(path)", sourceLocation: sourceLocation)
        }
        #expect(manifest.treeDigestText == "fwk-tree-v1:" + (example.tree[""] ?? ""), sourceLocation: sourceLocation)
        #expect(manifest.metadataDigestText == "fwk-meta-v1:" + (example.metadata[""] ?? ""), sourceLocation: sourceLocation)
    }

    /// The lines `Tools/tree_digest.py --metadata` prints for `url`.
    static func pythonDigests(of url: URL) throws -> [String] {
        let script = repository.appendingPathComponent("Tools/tree_digest.py").path
        let result = try ManifestFileTests.run("/usr/bin/env", ["python3", script, "--metadata", url.path], in: repository)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    static func relink(_ link: URL, to target: String) throws {
        try FileManager.default.removeItem(at: link)
        #expect(symlink(target, link.path) == 0)
    }
}
