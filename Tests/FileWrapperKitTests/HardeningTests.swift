import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// Issue 20, the weaker points of the disk layer: a file that changes
/// while it is streamed (what `pack` reads) is an error naming it, and a
/// temporary of a live writer is told from a dead one's by a lock, never by
/// a process ID.
@Suite struct HardeningTests {
    /// A file larger than the walk reads ahead, so that its blocks are read
    /// by the caller, after the walk took its size.
    static let size = 1 << 20

    /// Streams `directory/big.bin` as `pack` does, and calls `change` with
    /// the file's path once its first block has been read.
    static func stream(_ directory: TemporaryDirectory, changing change: (URL) throws -> Void) throws {
        let big = directory.appending("tree/big.bin")
        try Disk.write(Data(repeating: 7, count: size), to: big)
        try DiskTreeStream.walk(root: directory.appending("tree").path) { stream in
            while let entry = try stream.next() {
                var changed = false
                try entry.contents?.forEachBlock { _ in
                    if !changed { try change(big) }
                    changed = true
                }
            }
        }
    }

    static func append(_ byte: UInt8, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([byte]))
        try handle.close()
    }

    @Test func aFileThatGrowsWhileItIsStreamedIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let error = try #require(throws: FileWrapperError.self) {
            try Self.stream(directory) { try Self.append(1, to: $0) }
        }
        #expect(error.code == .changedOnDisk)
        #expect(error.description.contains(directory.appending("tree/big.bin").path), "\(error)")
    }

    /// The same size, other bytes: the modification time tells.
    @Test func aFileRewrittenWhileItIsStreamedIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let error = try #require(throws: FileWrapperError.self) {
            try Self.stream(directory) { big in
                let fd = open(big.path, O_WRONLY)
                defer { close(fd) }
                var byte: UInt8 = 8
                #expect(pwrite(fd, &byte, 1, off_t(Self.size - 1)) == 1)
                // A modification time the walk cannot have seen, however coarse the clock.
                var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
                #expect(futimens(fd, &times) == 0)
            }
        }
        #expect(error.code == .changedOnDisk)
    }

    @Test func aFileThatIsNotChangedStreamsWhole() throws {
        let directory = try TemporaryDirectory()
        try Self.stream(directory) { _ in }
    }

    /// A wrapper's lazily read file, streamed into an archive by
    /// `forEachContentsBlock`, grows meanwhile.
    @Test func aWrappersFileThatGrowsWhileItIsStreamedIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let big = directory.appending("tree/big.bin")
        try Disk.write(Data(repeating: 7, count: Self.size), to: big)
        let wrapper = try FileWrapper(url: directory.appending("tree"))
        let file = try #require(wrapper.fileWrappers?["big.bin"])
        var appended = false
        let error = try #require(throws: FileWrapperError.self) {
            try file.forEachContentsBlock(blockSize: 1 << 16) { _ in
                if !appended { try Self.append(1, to: big) }
                appended = true
            }
        }
        #expect(error.code == .changedOnDisk)
        #expect(error.description.contains(big.path), "\(error)")
    }
}
