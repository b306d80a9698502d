import FileWrapperArchive
import FileWrapperDocument
import FileWrapperKit
import Foundation
import SystemPackage
import Testing
import TestSupport

/// The errors of the three libraries in one shape (`FileWrapperKitError`):
/// each keeps the error it was made from, tells the system call and errno
/// found down its chain, and prints the chain once (`ErrorChain`).
@Suite struct ErrorChainTests {
    /// A manifest of a file that is not there keeps the failed call: its
    /// errno and name, and the file layer's error as its cause, which its
    /// sentence says (it once held only the text of `strerror`).
    @Test func aManifestErrorKeepsTheFailedCall() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.appending("missing.zip")
        let error = try #require(throws: ManifestError.self) { try Manifest(reading: missing) }
        #expect(error.errno == .noSuchFileOrDirectory, "\(error)")
        #expect(error.systemCall == "fstatat", "\(error)")
        let cause = try #require(error.underlying as? FileWrapperError)
        #expect(cause.code == .noSuchFile && cause.path == missing.path, "\(cause)")
        #expect(error.description == "\(missing.path): cannot read: fstatat(\"\(missing.path)\") failed: No such file or directory (ENOENT)",
                "\(error)")
    }

    /// Three errors, one made from the next: each sentence printed once,
    /// outermost first, and the call found at the bottom reported at the top.
    @Test func theChainIsPrintedOnceOutermostFirst() throws {
        let file = FileWrapperError(.ioError, path: "/docs/Trip.notes/index.json", systemCall: "pread", errno: .ioError)
        let archive = ArchiveError(.corrupt, archive: "Trip.zip", entry: "index.json", message: "the member cannot be read", underlying: file)
        let document = DocumentError(.unreadable, path: "/docs/Trip.zip", message: "cannot be opened", underlying: archive)
        let text = ErrorChain(document).description()
        #expect(text == "\"/docs/Trip.zip\": cannot be opened: Trip.zip: \"index.json\": the member cannot be read: "
            + "pread(\"/docs/Trip.notes/index.json\") failed: Input/output error (EIO)", "\(text)")
        #expect(document.description == text)
        #expect(document.systemCall == "pread" && document.errno == .ioError)
        #expect(archive.systemCall == "pread" && archive.paths == ["Trip.zip", "index.json"])
        #expect(ErrorChain(document).map { String(describing: type(of: $0)) } == ["DocumentError", "ArchiveError", "FileWrapperError"])
    }

    /// An archive error made from a file-layer error already says its
    /// sentence: the chain does not say it twice.
    @Test func aCauseTheMessageAlreadySaysIsNotRepeated() throws {
        let file = FileWrapperError(.outOfSpace, path: "/tmp/out.zip", systemCall: "write", errno: .noSpace)
        let archive = ArchiveError(.io, archive: "out.zip", message: file.description, underlying: file)
        #expect(ErrorChain(archive).description() == archive.description)
        #expect(archive.errno == .noSpace)
    }

    /// An entry name over 240 characters is cut to its first 200 and its
    /// length, the same way by an archive's error and a manifest's; the
    /// archive's is escaped after the cut, so a control byte still shows.
    @Test func aLongEntryIsCutAlikeInBothErrors() {
        let entry = "\u{7}" + String(repeating: "x", count: 4_999)
        let archive = ArchiveError(.corrupt, archive: "a.tar", entry: entry, message: "bad")
        let manifest = ManifestError(file: "m.json", entry: entry, message: "bad")
        let cut = String(repeating: "x", count: 199) + "...(5000 bytes)"
        #expect(archive.description == "a.tar: \"\\u{7}\(cut)\": bad")
        #expect(manifest.description == "m.json: \"\u{7}\(cut)\": bad")
    }
}
