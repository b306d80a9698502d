import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// The manifest of a directory, read on every core: the same entries as
/// the `FileWrapper` of the tree, however the work was shared out, and
/// the checks that a file is still the one the walk saw.
@Suite struct DiskWalkTests {
    @Test func aLargeTreeGivesTheEntriesOfItsFileWrapper() throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("Large.package")
        // More entries than fit in a worker's chunk, in directories nested
        // and side by side, so that subtrees pass between workers.
        for index in 0..<2600 {
            let folder = "d\(index % 5)/e\(index % 13)/f\(index % 3)"
            try Disk.write("file \(index)\n", to: root.appendingPathComponent("\(folder)/small \(index).txt"), mode: index % 4 == 0 ? 0o755 : 0o644)
        }
        // Files larger than a block go to the queue; one of exactly a block does not.
        var large: [String: Data] = [:]
        for (index, size) in [ContentHashing.blockSize * 3 + 17, ContentHashing.blockSize + 1, ContentHashing.blockSize, 5_000_000].enumerated() {
            let name = "d\(index % 5)/large \(index).bin"
            large[name] = Data([UInt8](count: size) { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            try Disk.write(large[name]!, to: root.appendingPathComponent(name))
        }
        try Disk.write(Data(), to: root.appendingPathComponent("empty file"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("d1/empty directory"), withIntermediateDirectories: true)
        try Disk.setXattr("user.note", "kept", on: root.appendingPathComponent("d2/large 2.bin"))
        try Disk.setXattr("user.note", "kept", on: root.appendingPathComponent("d3/e3"))
        #expect(symlink("../large 0.bin", root.appendingPathComponent("d0/e0/link").path) == 0)

        let progress = ManifestProgress()
        let manifest = try Manifest(contentsOf: root, progress: progress)
        let wrapper = try FileWrapper(url: root)
        let expected = try Manifest(wrapper, name: root.path)
        #expect(manifest.entries.count == expected.entries.count)
        for (read, made) in zip(manifest.entries, expected.entries) {
            #expect(read == made, "\(made.displayPath)")
        }
        #expect(manifest.treeDigestText != nil && manifest.treeDigestText == expected.treeDigestText)
        #expect(manifest.metadataDigestText == expected.metadataDigestText)
        for (name, contents) in large {
            #expect(manifest.entry(at: Array(name.utf8))?.contentDigest == SHA256Digest.of(contents), "\(name)")
        }
        #expect(progress.entries == manifest.entries.count - 1, "every entry below the root")
        #expect(progress.bytes == manifest.entries.reduce(0) { $0 + ($1.size ?? 0) })
    }

    @Test func aFileOfAnotherSizeThanItsStatusIsAnError() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("ten")
        try Disk.write("0123456789", to: url)
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        // A small buffer, so that the file takes several reads.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 1)
        defer { buffer.deallocate() }
        for size: Int64 in [5, 11, 10, 8] {
            lseek(fd, 0, SEEK_SET)
            let result = Result { () throws(FileWrapperError) in
                try ContentHashing.digest(of: fd, size: size, buffer: buffer, progress: nil, path: { url.path })
            }
            switch (size, result) {
            case (10, .success(let digest)):
                #expect(digest == SHA256Digest.of("0123456789".utf8))
            case (_, .failure(let error)):
                #expect(size != 10)
                #expect(error.code == .changedOnDisk && error.path == url.path)
                #expect(error.description.hasSuffix("the file changed size while it was read"))
            default:
                Issue.record("a file of 10 bytes hashed as \(size)")
            }
        }
    }

    /// The files of /proc say they are empty and are not: to a walk, they
    /// are files that grew while they were read.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/net/dev")))
    func aFileThatChangedSizeIsAnErrorNamingIt() throws {
        let error = try #require(throws: FileWrapperError.self) {
            try Manifest(contentsOf: URL(fileURLWithPath: "/proc/self/net"))
        }
        #expect(error.code == .changedOnDisk)
        #expect(error.path.hasPrefix("/proc/self/net/"))
        #expect(error.description.hasSuffix(": the file changed size while it was read"))
    }
}

/// The order of manifest paths, and finding a path by it.
@Suite struct ManifestPathTests {
    @Test func theOrderIsThatOfComponentsComparedByBytes() {
        // Byte by byte, "/" lower than any other byte: what `precedes` does
        // eight bytes at a time.
        func reference(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
            let key = { (path: [UInt8]) in path.map { $0 == UInt8(ascii: "/") ? 0 : Int($0) + 1 } }
            return key(lhs).lexicographicallyPrecedes(key(rhs))
        }
        var generator = SplitMix64(seed: 99)
        let alphabet: [UInt8] = [0x00, 0x2E, 0x2F, 0x30, 0x61, 0x62, 0x7F, 0x80, 0xFF]
        var paths: [[UInt8]] = [[], [0x2F], [0x61], Array("a/b".utf8), Array("a-b".utf8), Array("a.txt".utf8)]
        for _ in 0..<250 {
            let prefix = Array("common/prefix/longer/than/eight/".utf8).prefix(Int.random(in: 0...32, using: &generator))
            paths.append(Array(prefix) + (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        for lhs in paths {
            for rhs in paths {
                #expect(ManifestPath.precedes(lhs, rhs) == reference(lhs, rhs), "\(lhs) \(rhs)")
            }
        }
    }

    @Test func aCleanPathIsKeptAndOthersAreCleaned() {
        let cases: [(String, String?)] = [
            ("", ""), ("a", "a"), ("a/b", "a/b"), (".a/b.", ".a/b."), ("..a/...", "..a/..."),
            (".", ""), ("./", ""), ("./a//b/", "a/b"), ("a/.", "a"), ("a/./b", "a/b"),
            ("..", nil), ("a/../b", nil), ("/a", nil),
        ]
        for (path, cleaned) in cases {
            #expect(ManifestPath.normalized(Array(path.utf8)) == cleaned.map { Array($0.utf8) }, "\(path)")
        }
    }

    @Test func everyEntryIsFoundByItsPathAndNothingElse() throws {
        let manifest = try ManifestWritingTests.trickyManifest()
        for entry in manifest.entries {
            #expect(manifest.entry(at: entry.path) == entry, "\(entry.displayPath)")
        }
        for path in ["a", "caf", "caf\u{E9}/", "implied/x", "zzz", "/"] {
            #expect(manifest.entry(at: Array(path.utf8)) == nil, "\(path)")
        }
    }
}
