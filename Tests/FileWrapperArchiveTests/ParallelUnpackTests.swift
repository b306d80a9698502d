import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Unpacking with worker threads, which make the small files while the
/// archive is read on: the tree is exactly the archive's, on one processor
/// or several; a hard link finds its target made even when that was queued
/// just before it; and on a refusal every worker has ended, with no thread
/// or descriptor left, before the temporary tree is removed.
@Suite(.startsProcesses) struct ParallelUnpackTests {
    /// A regular file of a generated archive, as it must be unpacked.
    struct Expected {
        var contents: [UInt8]
        var mode: UInt32
        var modified: Int
    }

    /// The largest file the unpacker hands to a worker (`FileWorkers.largeFile`);
    /// larger ones its own thread writes.
    static let workerFileLimit = 1 << 17

    /// `count` files in folders of `perFolder`, each with bytes, a mode and a time of
    /// its own: 0 to 12 KiB, and three files of one byte less than
    /// ``workerFileLimit``, exactly it and one byte more; after every 7th
    /// file, a hard link to it. Returns the archive, the files by path, and
    /// the links with their targets.
    static func manyFiles(_ count: Int, perFolder: Int = 50) -> (tar: TarBuilder, files: [String: Expected], links: [String: String]) {
        var tar = TarBuilder()
        var files: [String: Expected] = [:]
        var links: [String: String] = [:]
        let modes = [0o644, 0o600, 0o755, 0o444, 0o4755]
        let nearLimit = [100: workerFileLimit - 1, 101: workerFileLimit, 102: workerFileLimit + 1]
        // File `index` holds the bytes `i * 31 + index * 131` (mod 256): a
        // slice of `i * 31`, from where that is `index * 131` (31 × 223 ≡ 1),
        // cut from one buffer rather than made byte by byte (seconds, for
        // 20 MB, in a debug build).
        let base = [UInt8](count: workerFileLimit + 257) { UInt8(truncatingIfNeeded: $0 &* 31) }
        for index in 0..<count {
            let folder = "folder-\(index / perFolder)"
            let path = "\(folder)/file-\(index)"
            let size = nearLimit[index] ?? (index * 7919) % 12289
            let start = (index &* 131 &* 223) & 255
            let contents = Array(base[start..<(start + size)])
            let mode = modes[index % modes.count]
            let modified = 1_600_000_000 + index * 37
            tar.file(path, contents: contents, mode: mode, modified: modified)
            // Set-id bits are dropped.
            files[path] = Expected(contents: contents, mode: UInt32(mode & 0o755), modified: modified)
            if index % 7 == 6 {
                let link = "\(folder)/link-\(index)"
                tar.hardLink(link, to: path)
                files[link] = files[path]
                links[link] = path
            }
        }
        return (tar, files, links)
    }

    /// Checks that `destination` holds exactly `files`, in folders one level
    /// deep, each link the same inode as its target.
    static func expectTree(_ destination: URL, holds files: [String: Expected], links: [String: String]) throws {
        let tree = try DiskTree(destination)
        let folders = Set(files.keys.filter { $0.contains("/") }.map { String($0.prefix { $0 != "/" }) })
        #expect(Set(tree.entries.keys) == Set(files.keys).union(folders).union([""]))
        let wrong = files.keys.sorted().filter { path in
            let entry = tree.entries[path]
            let file = files[path]!
            return entry?.contents != Data(file.contents) || entry?.mode != file.mode || entry?.modified.seconds != file.modified
        }
        #expect(wrong.isEmpty, "wrong bytes, mode or time: \(wrong.prefix(10))")
        let unlinked = links.keys.sorted().filter { link in
            Disk.inode(destination.appendingPathComponent(link)) != Disk.inode(destination.appendingPathComponent(links[link]!))
        }
        #expect(unlinked.isEmpty, "not hard links: \(unlinked.prefix(10))")
    }

    /// In folders of 50, each folder's files go to one worker; in one folder
    /// of 3,000, the workers take turns at runs of its files.
    @Test(arguments: [50, 3000])
    func thousandsOfFilesKeepTheirBytesModesTimesAndLinks(perFolder: Int) throws {
        let directory = try TemporaryDirectory()
        let (tar, files, links) = Self.manyFiles(3000, perFolder: perFolder)
        let archive = directory.appending("many.tar")
        try tar.archive.write(to: archive)

        let summary = try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("out"))

        #expect(summary.entries == files.count)
        try Self.expectTree(directory.appending("out"), holds: files, links: links)
        #expect(try Disk.names(in: directory.url) == ["many.tar", "out"])
    }

    /// A few files of 100 KB fill the space for bytes in flight, fewer than
    /// would wake a worker by their number: the unpacking thread must wake
    /// the workers before it waits for room.
    @Test func filesThatFillTheSpaceForBytesAreMade() throws {
        let directory = try TemporaryDirectory()
        var tar = TarBuilder()
        var files: [String: Expected] = [:]
        for index in 0..<40 {
            let contents = [UInt8](count: 100_000) { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
            tar.file("medium-\(index)", contents: contents, modified: 1_700_000_000)
            files["medium-\(index)"] = Expected(contents: contents, mode: 0o644, modified: 1_700_000_000)
        }
        let archive = directory.appending("medium.tar")
        try tar.archive.write(to: archive)
        let destination = directory.appending("out")

        let result = try Self.unpackInChild(archive, to: destination, onProcessors: nil)

        try #require(result.status == 0, "\(result.stderr)")
        try Self.expectTree(destination, holds: files, links: [:])
    }

    /// On processor 0 alone (`taskset`), one worker and the unpacking thread
    /// share it; on all of them, there is a worker a processor.
    @Test(arguments: ["0", nil])
    func aChildProcessUnpacksAndEndsItsThreads(onProcessors processors: String?) throws {
        let directory = try TemporaryDirectory()
        let (tar, files, links) = Self.manyFiles(1500)
        let archive = directory.appending("many.tar")
        try tar.archive.write(to: archive)
        let destination = directory.appending("out")

        let result = try Self.unpackInChild(archive, to: destination, onProcessors: processors)

        try #require(result.status == 0, "\(result.stderr)")
        Self.expectNothingLeft(result.stdout)
        try Self.expectTree(destination, holds: files, links: links)
    }

    @Test func aRefusalAfterThousandsOfFilesLeavesNothingBehind() throws {
        let directory = try TemporaryDirectory()
        var (tar, _, _) = Self.manyFiles(3000)
        tar.symlink("folder-59/escape", to: "../../outside")
        let archive = directory.appending("many.tar")
        try tar.archive.write(to: archive)

        let result = try Self.unpackInChild(archive, to: directory.appending("out"), onProcessors: nil)

        #expect(result.status == 2)
        #expect(result.stderr == "\(archive.path): \"folder-59/escape\": the symlink leads out of the tree (following the symlinks made before it) (keepsOutsideLinks keeps such links)\n")
        Self.expectNothingLeft(result.stdout)
        #expect(try Disk.names(in: directory.url) == ["many.tar"], "the destination or the temporary was left")
    }

    /// Runs `fwk-test-child unpack --count-resources`, on the processors
    /// `processors` (a `taskset` list) when given. A child that still runs
    /// after five minutes has hung: it is killed (status 137).
    static func unpackInChild(
        _ archive: URL, to destination: URL, onProcessors processors: String?
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        let placement = processors.map { ["/usr/bin/taskset", "-c", $0] } ?? []
        return try ZipTimeTests.run("/usr/bin/timeout", ["--signal=KILL", "300"] + placement
                                    + [child, "unpack", archive.path, destination.path, "--count-resources"])
    }

    /// Checks the child's counts of descriptors and threads: the same after
    /// the unpack as before it.
    static func expectNothingLeft(_ output: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let counts = output.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(counts.map { $0.first } == ["descriptors", "threads"], "\(output)", sourceLocation: sourceLocation)
        for count in counts where count.count == 3 {
            #expect(count[1] == count[2], "\(count[0]) before and after: \(count[1]) and \(count[2])", sourceLocation: sourceLocation)
        }
    }
}
