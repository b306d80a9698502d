import Foundation
import Testing
import TestSupport

/// Partial trouble is reported, not fatal (issue 23, item 10): `dump` of a
/// tree with a folder it cannot read lists everything else, marks that
/// folder with its error and exits 2 at the end, as `ls -R` and `find` do;
/// `digest` and `snapshot`, whose output stands for the whole tree, refuse.
/// `wrapinspect` runs bound by permission bits even as root
/// (``WrapInspectProcess/runBoundByPermissions(_:in:)``).
@Suite("a tree with unreadable parts")
struct UnreadableFolderTests {
    /// `T/a/f`, `T/b/c/g` with `T/b` of mode 000, `T/s/x` with `T/s` of
    /// mode 0444 (listed, but its entries cannot be looked at), `T/z/h`.
    final class Tree {
        let directory: TemporaryDirectory

        init(_ test: String = #function) throws {
            directory = try TemporaryDirectory(test)
            for (path, text) in [("T/a/f", "one"), ("T/b/c/g", "hidden"), ("T/s/x", "unseen"), ("T/z/h", "two")] {
                let url = directory.appending(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            }
            lock()
        }

        deinit {
            unlock()
        }

        func lock() {
            chmod(directory.appending("T/b").path, 0o000)
            chmod(directory.appending("T/s").path, 0o444)
        }

        func unlock() {
            chmod(directory.appending("T/b").path, 0o755)
            chmod(directory.appending("T/s").path, 0o755)
        }

        func run(_ arguments: [String]) throws -> CommandResult {
            try WrapInspectProcess.runBoundByPermissions(arguments, in: directory.url)
        }
    }

    @Test func dumpListsEverythingElseMarksTheFolderAndExits2() throws {
        let tree = try Tree()
        let result = try tree.run(["dump", "T"])
        #expect(result.exited)
        #expect(result.status == 2)
        #expect(result.stdoutLines.contains("d---------       ├── b/  [unreadable: Permission denied (EACCES)]"), "\(result.stdout)")
        #expect(result.stdoutLines.contains("dr--r--r--       ├── s/  [unreadable: Permission denied (EACCES)]"), "\(result.stdout)")
        #expect(result.stdoutLines.contains("-rw-r--r--  3 B  │   └── f"), "\(result.stdout)")
        #expect(result.stdoutLines.contains("-rw-r--r--  3 B      └── h"), "\(result.stdout)")
        #expect(!result.stdout.contains("g\n") && !result.stdout.contains("x\n"))
        #expect(result.stdoutLines.last == "4 directories, 2 files, 0 symlinks, 6 bytes")
        // Each one named on standard error after the listing, by its path and call.
        let root = tree.directory.appending("T").path
        #expect(result.stderr == """
            wrapinspect: openat("\(root)/b") failed: Permission denied (EACCES)
            wrapinspect: fstatat("\(root)/s/x") failed: Permission denied (EACCES)

            """, "\(result.stderr)")

        // The same tree, readable: everything listed, exit 0.
        tree.unlock()
        let whole = try tree.run(["dump", "T"])
        #expect(whole.status == 0)
        #expect(whole.stderr == "")
        #expect(whole.stdoutLines.contains("-rw-r--r--  6 B  │       └── g"), "\(whole.stdout)")
        #expect(!whole.stdout.contains("unreadable"))
    }

    @Test func dumpJSONIsAPartialListingThatNoReaderTakesForAManifest() throws {
        let tree = try Tree()
        let result = try tree.run(["dump", "--json", "--digests", "T"])
        #expect(result.status == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        #expect(object["version"] as? Int == 2)
        // A digest of part of the tree would pass for the tree's.
        #expect(object["treeDigest"] == nil && object["metadataDigest"] == nil)
        let entries = try #require(object["entries"] as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: entries.map { (Array(($0["path"] as! String).utf8), $0) })
        let locked = try #require(byPath[Array("b".utf8)])
        let error = try #require(locked["error"] as? [String: String])
        #expect(error == ["call": "openat", "errno": "EACCES", "message": "Permission denied"])
        #expect(locked["treeDigest"] == nil && byPath[[]]?["treeDigest"] == nil)
        #expect(byPath[Array("a/f".utf8)]?["sha256"] != nil && byPath[Array("a/f".utf8)]?["error"] == nil)
        #expect(byPath[Array("a".utf8)]?["treeDigest"] != nil)
        #expect(byPath[Array("b/c".utf8)] == nil)

        let saved = tree.directory.appending("partial.json")
        try Data(result.stdoutBytes).write(to: saved)
        let reread = try WrapInspectProcess.run(["dump", "partial.json"], in: tree.directory.url)
        #expect(reread.status == 2)
        #expect(reread.stderr.contains("version 2 is a partial listing of a tree"), "\(reread.stderr)")
    }

    @Test func dumpWithDigestsMarksAFileItCannotRead() throws {
        let tree = try Tree()
        tree.unlock()
        let secret = tree.directory.appending("T/a/secret")
        try Data("private".utf8).write(to: secret)
        chmod(secret.path, 0o000)
        let result = try tree.run(["dump", "--digests", "T"])
        #expect(result.status == 2)
        let line = try #require(result.stdoutLines.first { $0.hasSuffix("secret  [unreadable: Permission denied (EACCES)]") }, "\(result.stdout)")
        #expect(line.hasPrefix("----------  7 B  " + String(repeating: " ", count: 64)))
        #expect(result.stdoutLines.contains { $0.hasSuffix("├── f") && $0.contains("7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed") })
        #expect(!result.stdout.contains("tree digest"))
        #expect(result.stderr == "wrapinspect: openat(\"\(secret.path)\") failed: Permission denied (EACCES)\n")
    }

    @Test(arguments: [["digest", "T"], ["snapshot", "T", "-o", "T.json"]])
    func digestAndSnapshotRefuseATreeTheyCannotReadWhole(arguments: [String]) throws {
        let tree = try Tree()
        let result = try tree.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("wrapinspect: "))
        // Workers walk subtrees side by side: either unreadable part may be met first.
        let root = tree.directory.appending("T").path
        #expect(result.stderr.contains("(\"\(root)/b\") failed: Permission denied (EACCES)")
            || result.stderr.contains("(\"\(root)/s/x\") failed: Permission denied (EACCES)"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: tree.directory.appending("T.json").path))
    }
}
