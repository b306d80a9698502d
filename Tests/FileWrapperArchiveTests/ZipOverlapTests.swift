@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// A zip whose members overlap each other or the central directory
/// (``ZipMemberExtents``; the inputs: ``OverlappingZips``) is refused by
/// every reader that walks the directory, with an error of kind corrupt
/// naming the archive and the member: the unpacker (leaving no
/// destination), the in-memory reader, the manifest and the lazy
/// container. Python's zipfile reads each of them, CRCs and all; Info-ZIP's
/// unzip refuses each ("overlapped components").
@Suite(.startsProcesses) struct ZipOverlapTests {
    /// The zip of `kind` in `directory`.
    static func zip(_ kind: String, in directory: TemporaryDirectory) throws -> URL {
        let zip = directory.appending("\(kind).zip")
        try Interop.run("python3", ["-c", OverlappingZips.script, kind, zip.path], in: directory.url)
        return zip
    }

    /// The member each kind's error names, and what it says of it.
    static let refusals: [(kind: String, member: String, message: String)] = [
        ("into-directory", "runs.txt", "the member runs into the central directory"),
        ("into-directory-extra", "runs.txt", "the member runs into the central directory"),
        ("bomb-stored", "member000.txt", "the member overlaps member \"member001.txt\""),
        ("bomb-quoted", "member000.txt", "the member overlaps member \"member001.txt\""),
    ]

    static func expect(_ error: ArchiveError, names zip: URL, _ member: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error.code == .corrupt && error.archive.utf8.elementsEqual(zip.path.utf8), "\(error)", sourceLocation: sourceLocation)
        #expect(error.entry.map { $0.utf8.elementsEqual(member.utf8) } == true && error.message.hasPrefix(message), "\(error)",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: refusals.map(\.kind))
    func theUnpackerTheInMemoryReaderAndTheManifestRefuseIt(kind: String) throws {
        let (_, member, message) = try #require(Self.refusals.first { $0.kind == kind })
        let directory = try TemporaryDirectory()
        let zip = try Self.zip(kind, in: directory)
        let destination = directory.appending("out")
        Self.expect(try #require(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: zip, to: destination) }, names: zip, member, message)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["\(kind).zip"])
        Self.expect(try #require(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(contentsOf: zip) }, names: zip, member, message)
        Self.expect(try #require(throws: ArchiveError.self) { try Manifest(reading: zip) }, names: zip, member, message)
    }

    /// The lazy container refuses on opening what the central directory
    /// shows, each local header taken as short as it can be; a member that
    /// runs into the directory by less than its local header's extra field
    /// is refused when it is read, its header known.
    @Test(arguments: refusals.map(\.kind))
    func theLazyContainerRefusesIt(kind: String) throws {
        let (_, member, message) = try #require(Self.refusals.first { $0.kind == kind })
        let directory = try TemporaryDirectory()
        let zip = try Self.zip(kind, in: directory)
        guard kind == "into-directory-extra" else {
            Self.expect(try #require(throws: ArchiveError.self) { try ZipContainer.fileWrapper(contentsOf: zip) }, names: zip, member, message)
            return
        }
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        #expect(Array(try ZipContainerReadTests.wrapper(at: "first.txt", in: root).readRegularFileContents()) == Array("a member that keeps to itself\n".utf8))
        let error = try #require(throws: (any Error).self) { try ZipContainerReadTests.wrapper(at: member, in: root).readRegularFileContents() }
        #expect("\(error)".contains(member) && "\(error)".contains(message), "\(error)")
    }
}
