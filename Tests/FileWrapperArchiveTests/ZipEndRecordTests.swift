@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Info-ZIP's zip writes a zip64 end record and locator whenever a member
/// needs zip64 (a member read from standard input, `cmd | zip out.zip -`),
/// and keeps real values in the classic end record after them. The
/// directory then ends where the zip64 end record begins
/// (``ZipDirectoryEnd/locate(in:)``), and every reader finds it there:
/// the in-memory reader and the lazy container, also after a
/// self-extracting stub. (The commands: `ZipEndRecordCommandTests`.)
@Suite(.startsProcesses) struct ZipEndRecordTests {
    /// What the zip holds: `a.txt` from a file, `-` from standard input.
    static let files: [[UInt8]: [UInt8]] = [Array("a.txt".utf8): Array("first\n".utf8), Array("-".utf8): Array("hello\n".utf8)]

    /// `st.zip` in `directory`, as Info-ZIP's zip writes it with one member
    /// from standard input; checked to have a zip64 end record and a
    /// classic one whose values are real (not 0xFFFF or 0xFFFFFFFF).
    static func streamed(in directory: TemporaryDirectory) throws -> URL {
        try Interop.run("/bin/sh", ["-c", "printf 'first\\n' > a.txt && zip -q -X st.zip a.txt && printf 'hello\\n' | zip -q -X st.zip -"],
                        in: directory.url)
        let zip = directory.appending("st.zip")
        let bytes = [UInt8](try Data(contentsOf: zip))
        let end = try #require(bytes.indices.dropLast(21).last { bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x05, 0x06]) })
        let offset = bytes[(end + 16)..<(end + 20)].reversed().reduce(0) { $0 << 8 | Int($1) }
        let count = Int(bytes[end + 10]) | Int(bytes[end + 11]) << 8
        try #require(count == 2 && offset != 0xFFFF_FFFF, "the classic end record holds real values")
        try #require(bytes.indices.dropLast(3).contains { bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x06, 0x06]) }, "a zip64 end record")
        return zip
    }

    @Test func theInMemoryReaderAndTheLazyContainerReadIt() throws {
        let directory = try TemporaryDirectory()
        let zip = try Self.streamed(in: directory)
        #expect(try SelfExtractingZipReadTests.files(of: ArchiveReader.fileWrapper(contentsOf: zip)) == Self.files)
        #expect(try SelfExtractingZipReadTests.files(of: ZipContainer.fileWrapper(contentsOf: zip)) == Self.files)
    }

    /// After a stub, its offsets adjusted for it (as `zip -A` adjusts them;
    /// Info-ZIP's zip refuses to adjust a zip64 one), both read it; not
    /// adjusted, the lazy container does, as unzip and Python's zipfile
    /// do, and the in-memory reader refuses it as it refuses every such
    /// zip64 that libarchive 3.6.2 finds no member in (``SelfExtractingZipReadTests``).
    @Test(arguments: [true, false])
    func afterASelfExtractingStub(adjusted: Bool) throws {
        let directory = try TemporaryDirectory()
        let plain = try Self.streamed(in: directory)
        let stub = Data("#!/bin/sh\necho a self-extracting stub\nexit 0\n".utf8)
        try stub.write(to: directory.appending("stub"))
        let zip = directory.appending("sfx.zip")
        if adjusted {
            try Interop.run("python3", ["-c", ZipLazyMethodTests.adjust, "stub", plain.path, zip.path], in: directory.url)
        } else {
            try (stub + Data(contentsOf: plain)).write(to: zip)
        }
        #expect(try SelfExtractingZipReadTests.files(of: ZipContainer.fileWrapper(contentsOf: zip)) == Self.files)
        if adjusted {
            #expect(try SelfExtractingZipReadTests.files(of: ArchiveReader.fileWrapper(contentsOf: zip)) == Self.files)
        } else {
            let error = try #require(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(contentsOf: zip) }
            #expect(error.code == .corrupt && error.message.contains("libarchive's zip reader finds none"), "\(error)")
        }
    }
}
