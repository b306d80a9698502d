import Foundation
import Glibc
import Testing
import TestSupport

extension Interop {
    /// The trees the interop tests pack and unpack.
    enum Tree: String, Sendable, CustomTestStringConvertible {
        /// A copy of `Fixtures/Travel.journal`.
        case sample = "Travel.journal"
        /// Names in several scripts, an emoji (four UTF-8 bytes), and
        /// symlinks whose targets are not ASCII.
        case nonASCII = "non-ASCII names"

        var testDescription: String { rawValue }
    }

    /// One test case's files in a fresh temporary directory: the tree
    /// (`tree/`), and beside it the archives and extracted copies.
    final class Workspace {
        let directory: TemporaryDirectory
        /// The tree under test, with fixed modes and modification times.
        let tree: URL

        static let sampleFixture = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // FileWrapperArchiveTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // the package
            .appendingPathComponent("Fixtures/Travel.journal")

        init(_ kind: Tree, test: String = #function) throws {
            directory = try TemporaryDirectory("Interop" + test)
            tree = directory.appending("tree")
            switch kind {
            case .sample: try makeSample()
            case .nonASCII: try makeNonASCIITree()
            }
            try stampTimes()
        }

        /// `name` beside the tree.
        func url(_ name: String) -> URL {
            directory.appending(name)
        }

        /// A new empty directory `name` beside the tree.
        func newDirectory(_ name: String) throws -> URL {
            let created = url(name)
            try FileManager.default.createDirectory(at: created, withIntermediateDirectories: false)
            return created
        }

        /// Runs `program` in `directory` (the workspace by default); see
        /// ``Interop/run(_:_:in:)``.
        @discardableResult
        func run(_ program: String, _ arguments: [String], in directory: URL? = nil) throws -> Output {
            try Interop.run(program, arguments, in: directory ?? self.directory.url)
        }

        /// The tree's top-level names, sorted by their bytes: what a tool is
        /// given to pack so that its archive holds what ours holds.
        func topLevelNames() throws -> [String] {
            try Disk.names(in: tree).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }

        /// The sample as Tests/WrapInspectTests' `SampleJournal` makes it:
        /// with `Drafts/`, which Git cannot hold, and with the modes a 022
        /// umask gives (directories 0755, files 0644, `Scripts/export.sh`
        /// 0755) whatever the checkout's umask was. Copied with `cp -R`
        /// (symlinks as symlinks), as `FileManager.copyItem` gives each
        /// directory the original's owner, which fails for a user who does
        /// not own the checkout.
        private func makeSample() throws {
            try run("cp", ["-R", Self.sampleFixture.path, tree.path])
            try FileManager.default.createDirectory(at: tree.appendingPathComponent("Drafts"), withIntermediateDirectories: true)
            for (path, entry) in try DiskTree(tree).entries {
                let mode: mode_t
                switch entry.kind {
                case "directory": mode = 0o755
                case "file": mode = path == "Scripts/export.sh" ? 0o755 : 0o644
                default: continue  // symlinks: chmod would follow them
                }
                guard chmod(url(in: path).path, mode) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            }
        }

        /// Names in Latin with a composed accent, Japanese, and an emoji; a
        /// 0600 file, so that a tool that ignores stored modes shows; and
        /// symlinks to a file and to a directory with Japanese targets.
        private func makeNonASCIITree() throws {
            try Disk.write("caf\u{E9}\n", to: tree.appendingPathComponent("caf\u{E9}.txt"))
            try Disk.write("\u{1F4E6}\n", to: tree.appendingPathComponent("emoji-\u{1F4E6}.txt"))
            try Disk.write("\u{65E5}\u{672C}\u{8A9E}\n", to: tree.appendingPathComponent("日本語/ファイル.txt"), mode: 0o600)
            chmod(tree.appendingPathComponent("日本語").path, 0o755)
            chmod(tree.path, 0o755)
            try FileManager.default.createSymbolicLink(atPath: url(in: "リンク").path, withDestinationPath: "日本語/ファイル.txt")
            try FileManager.default.createSymbolicLink(atPath: url(in: "フォルダ").path, withDestinationPath: "日本語")
        }

        /// Gives every entry but the root its own modification time: whole
        /// seconds odd, so that zip's two-second DOS time shows, and
        /// nanoseconds not a multiple of 100, so that 7z's 100 ns shows.
        private func stampTimes() throws {
            let paths = try DiskTree(tree).entries.keys.filter { !$0.isEmpty }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, path) in paths.enumerated() {
                Disk.setModificationTime(url(in: path), seconds: 1_767_225_601 + 2 * index, nanoseconds: 123_456_789 + 1_000 * index)
            }
        }

        private func url(in path: String) -> URL {
            tree.appendingPathComponent(path)
        }
    }
}
