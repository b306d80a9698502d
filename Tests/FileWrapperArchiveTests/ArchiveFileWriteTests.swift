import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Writing an archive file: replaced whole or not at all, never over a
/// directory, and what a killed write left is cleaned up.
@Suite struct ArchiveFileWriteTests {
    static func tree(_ text: String) -> FileWrapper {
        FileWrapper(directoryWithFileWrappers: ["note.txt": FileWrapper(regularFileWithContents: Data(text.utf8))])
    }

    static func note(in archive: URL) throws -> String? {
        let tree = try ArchiveReader.fileWrapper(contentsOf: archive)
        return tree.fileWrappers?["note.txt"]?.regularFileContents.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func anExistingArchiveIsReplaced() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("doc.zip")
        try ArchiveWriter.write(Self.tree("first"), to: url, options: ArchiveWriteOptions(format: .zip))
        try ArchiveWriter.write(Self.tree("second"), to: url, options: ArchiveWriteOptions(format: .zip))

        #expect(try Self.note(in: url) == "second")
        #expect(try Disk.names(in: directory.url) == ["doc.zip"])
    }

    @Test func aFailedWriteKeepsTheOldArchive() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("doc.tar")
        try ArchiveWriter.write(Self.tree("old"), to: url, options: ArchiveWriteOptions(format: .tar))
        try Disk.write("will vanish", to: directory.appending("bundle/gone.txt"))
        let lazy = try FileWrapper(url: directory.appending("bundle"))
        try FileManager.default.removeItem(at: directory.appending("bundle/gone.txt"))

        #expect(throws: (any Error).self) { try ArchiveWriter.write(lazy, to: url, options: ArchiveWriteOptions(format: .tar)) }

        #expect(try Self.note(in: url) == "old")
        #expect(try Disk.names(in: directory.url) == ["bundle", "doc.tar"])
    }

    @Test func aDirectoryIsNeverReplaced() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("doc.zip")
        try Disk.write("keep", to: url.appendingPathComponent("inside.txt"))

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveWriter.write(Self.tree("x"), to: url, options: ArchiveWriteOptions(format: .zip))
        }
        #expect(error.message.contains("is a directory"))
        #expect(try Disk.names(in: url) == ["inside.txt"])
    }

    @Test func leftoversOfDeadWritersAreRemoved() throws {
        let directory = try TemporaryDirectory()
        // No one holds byte "abc" (base 36) of the directory: its writer is dead.
        let dead = ".doc.tar.fwk-save-\(getpid())-abc"
        // A live writer holds its byte, through a descriptor of its own on the directory.
        let writer = open(directory.url.path, O_RDONLY | O_DIRECTORY)
        defer { close(writer) }
        let alive = Replacement.temporaryName(for: "doc.tar", lockingIn: writer)
        try Disk.write("half", to: directory.appending(dead))
        try Disk.write("mine", to: directory.appending(alive))

        try ArchiveWriter.write(Self.tree("x"), to: directory.appending("doc.tar"), options: ArchiveWriteOptions(format: .tar))

        #expect(try Disk.names(in: directory.url) == [alive, "doc.tar"])
    }
}
