@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// A zip after a self-extracting stub whose offsets were not adjusted for
/// it (`zip -A` adjusts them) is read by the in-memory reader as libarchive
/// reads it: a classic zip is, a zip64 one, whose directory libarchive
/// 3.6.2 looks for in the wrong place and finds no member in, is refused
/// naming the archive, never read as an empty tree. (``ZipContainer``
/// reads both, ``ZipLazyMethodTests``.)
@Suite(.startsProcesses) struct SelfExtractingZipReadTests {
    /// `sfx.zip` in `directory`: a stub, then Info-ZIP's zip of two files,
    /// zip64 (`-fz`) or classic, its offsets left as they were.
    static func unadjusted(zip64: Bool, in directory: TemporaryDirectory) throws -> URL {
        let files = Array(ZipLazyMethodTests.files(seed: 64).prefix(2))
        let source = try ZipLazyMethodTests.writeSources(files, in: directory)
        let plain = directory.appending("plain.zip")
        try Interop.run("zip", ["-q", "-X"] + (zip64 ? ["-fz"] : []) + [plain.path] + files.map(\.path), in: source)
        let bytes = try Data(contentsOf: plain)
        try #require((bytes.range(of: Data([0x50, 0x4B, 0x06, 0x06])) != nil) == zip64, "zip wrote a zip64 end record: \(!zip64)")
        let stub = Data("#!/bin/sh\necho a self-extracting stub\nexit 0\n".utf8) + Data(repeating: UInt8(ascii: "#"), count: 3000)
        let zip = directory.appending("sfx.zip")
        try (stub + bytes).write(to: zip)
        return zip
    }

    @Test func anUnadjustedSelfExtractingZip64IsRefusedNamingTheArchive() throws {
        let directory = try TemporaryDirectory()
        let zip = try Self.unadjusted(zip64: true, in: directory)
        let fromFile = try #require(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(contentsOf: zip) }
        let fromData = try #require(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(from: Data(contentsOf: zip), name: "sfx.zip") }
        for (error, name) in [(fromFile, zip.relativePath), (fromData, "sfx.zip")] {
            #expect(error.code == .corrupt && Array(error.archive.utf8) == Array(name.utf8), "\(error)")
            #expect(error.message.contains("the zip's central directory lists 2 members, but libarchive's zip reader finds none"), "\(error)")
        }
    }

    /// A classic zip after a stub, which libarchive finds its directory in.
    @Test func anUnadjustedSelfExtractingClassicZipStillReads() throws {
        let directory = try TemporaryDirectory()
        let zip = try Self.unadjusted(zip64: false, in: directory)
        let files = try Self.files(of: ArchiveReader.fileWrapper(contentsOf: zip))
        #expect(files == [Array("text.txt".utf8): ZipLazyMethodTests.files(seed: 64)[0].contents,
                          Array("sub/noise.bin".utf8): ZipLazyMethodTests.files(seed: 64)[1].contents])
    }

    /// The regular files below `root`, by the bytes of their paths.
    static func files(of root: FileWrapper) throws -> [[UInt8]: [UInt8]] {
        var files: [[UInt8]: [UInt8]] = [:]
        var pending = [([UInt8](), root)]
        while let (path, wrapper) = pending.popLast() {
            for (name, child) in wrapper.fileWrappers ?? [:] {
                let childPath = path.isEmpty ? Array(name.utf8) : path + [UInt8(ascii: "/")] + Array(name.utf8)
                if child.isDirectory { pending.append((childPath, child)) } else { files[childPath] = Array(try child.readRegularFileContents()) }
            }
        }
        return files
    }
}
