@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// A zip tree saved (``ZipContainer/write(_:to:options:)``,
/// ``ZipArchiveEditor/commit(options:)``) reads from the zip it wrote within
/// the limits it was opened with, not ``ArchiveReadLimits/unpacking``: a
/// member refused before the save is refused after it. What the caller
/// added beyond those limits is written, and the members left alone still
/// read from the new zip.
@Suite(.startsProcesses) struct ZipSaveLimitsTests {
    @Test func aMemberRefusedBeforeASaveIsRefusedAfterIt() throws {
        let directory = try TemporaryDirectory()
        let files = ZipLazyMethodTests.files(seed: 17)
        let source = try ZipLazyMethodTests.writeSources(files, in: directory)
        let zip = directory.appending("mixed.zip")
        // text.txt compressed with LZMA, whose members Python makes with an 8 MiB dictionary; the others stored.
        try Interop.run("python3", ["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.write("text.txt", compress_type=zipfile.ZIP_LZMA)
                z.write("sub/noise.bin")
                z.write("empty")
            """, zip.path], in: source)
        let limits = ArchiveReadLimits(maxBytes: 200_000, maxMemory: 1 << 20)
        let editor = try ZipArchiveEditor(contentsOf: zip, limits: limits)
        func readText() throws -> FileWrapperError {
            try #require(throws: FileWrapperError.self) { try #require(try editor.member(at: "text.txt")).readRegularFileContents() }
        }
        let before = try readText()
        #expect(before.description.contains("the zip member \"text.txt\"") && before.description.contains("more than the limit of 1048576 bytes"), "\(before)")

        // A member of the caller's own, over maxBytes, is written all the same.
        let big = [UInt8](repeating: 7, count: 250_000)
        try editor.setContents(Data(big), at: "big.bin")
        try editor.commit()
        let after = try readText()
        #expect(after.path == zip.path && after.description == before.description, "\(after)")

        // The member left alone reads from the new zip, and a second save copies it.
        let noise = try #require(try editor.member(at: "sub/noise.bin"))
        #expect(Array(try noise.readRegularFileContents()) == files[1].contents)
        try editor.commit()
        #expect(try StoredZipMembers.list(zip).map { Array($0.name.utf8) }.contains(Array("big.bin".utf8)))
        let reopened = try #require(throws: ArchiveError.self) { try ZipContainer.fileWrapper(contentsOf: zip, limits: limits) }
        #expect(reopened.limit == .maxBytes && reopened.entry.map { Array($0.utf8) } == Array("big.bin".utf8), "\(reopened)")
    }
}
