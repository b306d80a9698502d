import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperArchive
import FileWrapperKit

/// Issue 25, item 4: ``ArchiveWriter`` writes every format it packs to a
/// descriptor that cannot seek (a pipe, a socket) as a stream, the same
/// bytes as to a file; the zip written so reads in Info-ZIP unzip, bsdtar
/// and Python's zipfile.
@Suite(.startsProcesses) struct StreamWriteTests {
    /// A seeded tree: a file of several zip chunks (mixed text and random
    /// bytes), small files, a folder and a symlink.
    static func tree() -> FileWrapper {
        var random = SplitMix64(seed: 25)
        let text = Data((0..<40_000).map { "line \($0) of the stream\n" }.joined().utf8)
        let large = FileWrapper(regularFileWithContents: text + Data(random.bytes(300_000)))
        let small = FileWrapper(regularFileWithContents: Data("small".utf8))
        let sub = FileWrapper(directoryWithFileWrappers: ["b.txt": FileWrapper(regularFileWithContents: Data("b".utf8))])
        let link = FileWrapper(symbolicLinkWithDestinationBytes: Array("sub/b.txt".utf8))
        let root = FileWrapper(directoryWithFileWrappers: ["large.bin": large, "small.txt": small, "sub": sub, "link": link])
        for wrapper in [large, small, sub, link, sub.fileWrappers!["b.txt"]!] {
            wrapper.attributes.modificationDate = FileTimestamp(seconds: 1_700_000_000)
        }
        return root
    }

    /// What `write` puts into a pipe, read on another thread to its end.
    static func throughPipe(_ write: (CInt) throws -> Void) throws -> [UInt8] {
        var ends: [CInt] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        nonisolated(unsafe) var received: [UInt8] = []
        let done = DispatchSemaphore(value: 0)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                received += buffer[..<count]
            }
            done.signal()
        }.start()
        do {
            try write(writer)
        } catch {
            close(writer)
            done.wait()
            close(reader)
            throw error
        }
        close(writer)
        done.wait()
        close(reader)
        let bytes = received
        return bytes
    }

    @Test(arguments: ArchiveFormat.allWritable)
    func aPipeGetsTheBytesAFileGets(format: ArchiveFormat) throws {
        let directory = try TemporaryDirectory()
        let options = ArchiveWriteOptions(format: format, reproducible: true)
        let file = directory.appending("expected." + format.fileExtension)
        try ArchiveWriter.write(Self.tree(), to: file, options: options)
        let streamed = try Self.throughPipe { fd in try ArchiveWriter.write(Self.tree(), to: fd, options: options, name: "pipe") }
        #expect(streamed == Array(try Data(contentsOf: file)), "\(format): \(streamed.count) bytes through the pipe")
        let manifest = try Manifest(archiveData: Data(streamed), name: "pipe")
        let size = Int64(Self.tree().fileWrappers!["large.bin"]!.regularFileContents!.count)
        #expect(manifest.entries.first { $0.path == Array("large.bin".utf8) }?.size == size, "\(format) reads back")
    }

    /// The zip written into a pipe, where nothing can be sought back to,
    /// passes `unzip -t`, lists in bsdtar and tests clean in Python's zipfile.
    @Test func aZipWrittenToAPipeReadsEverywhere() throws {
        let directory = try TemporaryDirectory()
        let streamed = try Self.throughPipe { fd in
            try ArchiveWriter.write(Self.tree(), to: fd, options: ArchiveWriteOptions(format: .zip), name: "pipe")
        }
        let zip = directory.appending("streamed.zip")
        try Data(streamed).write(to: zip)
        let unzip = try ChildProcess.run("/usr/bin/unzip", ["-t", zip.path])
        #expect(unzip.status == 0, "\(unzip.stdout)\(unzip.stderr)")
        #expect(unzip.stdout.contains("No errors detected"), "\(unzip.stdout)")
        let bsdtar = try ChildProcess.run("/usr/bin/bsdtar", ["-tf", zip.path])
        #expect(bsdtar.status == 0, "\(bsdtar.stderr)")
        #expect(bsdtar.stdoutLines.sorted() == ["large.bin", "link", "small.txt", "sub/", "sub/b.txt"])
        let python = try ChildProcess.run("/usr/bin/env", ["python3", "-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            print(len(z.read("large.bin")))
            """, zip.path])
        #expect(python.status == 0, "\(python.stderr)")
        #expect(python.stdout == "\(Self.tree().fileWrappers!["large.bin"]!.regularFileContents!.count)\n")
    }

    /// ``ArchiveReader/fileWrapper(readingFrom:name:formats:limits:)`` reads
    /// a tree from a pipe as another thread writes it: a tar.zst as it
    /// comes, a zip through its spool.
    @Test(arguments: [ArchiveFormat.tarZstd, .zip])
    func aTreeIsReadFromAPipe(format: ArchiveFormat) throws {
        let reader = try PipeFeed.reading(ArchiveWriter.data(for: Self.tree(), options: ArchiveWriteOptions(format: format)))
        defer { close(reader) }
        let tree = try ArchiveReader.fileWrapper(readingFrom: reader, name: "pipe")
        #expect(tree.fileWrappers?["large.bin"]?.regularFileContents == Self.tree().fileWrappers?["large.bin"]?.regularFileContents)
        #expect(tree.fileWrappers?["link"]?.symbolicLinkDestinationBytes == Array("sub/b.txt".utf8))
        #expect(tree.fileWrappers?["sub"]?.fileWrappers?["b.txt"]?.regularFileContents == Data("b".utf8))
    }

    /// A file on disk is written from its offset, after what is there.
    @Test func aFileHandleIsWrittenFromItsOffset() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("log")
        try Data("head".utf8).write(to: url)
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try ArchiveWriter.write(Self.tree(), to: handle, options: ArchiveWriteOptions(format: .tar, reproducible: true), name: "log")
        try handle.close()
        let written = try Data(contentsOf: url)
        let alone = try ArchiveWriter.data(for: Self.tree(), options: ArchiveWriteOptions(format: .tar, reproducible: true))
        #expect(written == Data("head".utf8) + alone)
    }

    /// A reader that went away is an error naming the archive, not a crash.
    @Test func aClosedPipeIsAnErrorNamingTheArchive() throws {
        var ends: [CInt] = [0, 0]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        #expect {
            try ArchiveWriter.write(Self.tree(), to: ends[1], options: ArchiveWriteOptions(format: .zip), name: "the pipe")
        } throws: { error in
            let error = error as? ArchiveError
            return error?.archive == "the pipe" && error?.message.contains("Broken pipe") == true
        }
    }
}
