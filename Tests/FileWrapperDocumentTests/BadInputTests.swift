import FileWrapperDocument
import Foundation
import Testing
import TestSupport

/// What must hold (5): a file of the wrong type, a corrupt zip container, a
/// package missing its index: the open fails with an error that names the
/// file and says what is wrong.
@Suite struct BadInputTests {
    static func openError<Document: FileDocument>(
        _ type: Document.Type, _ url: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> DocumentError {
        try await #require(throws: DocumentError.self, sourceLocation: sourceLocation) {
            _ = try await DocumentController<Document>(contentsOf: url)
        }
    }

    @Test func aFileOfATypeNoDocumentReadsIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("photo.png")
        try Disk.write(Data([0x89, 0x50, 0x4E, 0x47]), to: url)
        let error = try await Self.openError(TextDocument.self, url)
        #expect(error.code == .unreadableContentType)
        #expect(error.description == "\"\(url.path)\": cannot be opened: its type is public.png (PNG image), and no document type reads it (this one reads public.plain-text)")
    }

    @Test func unknownAndMissingExtensionsAreRefused() async throws {
        let directory = try TemporaryDirectory()
        let unknown = directory.appending("data.qqq")
        let bare = directory.appending("README")
        try Disk.write("x", to: unknown)
        try Disk.write("x", to: bare)
        let first = try await Self.openError(TextDocument.self, unknown)
        #expect(first.code == .unreadableContentType && first.description.contains("its type is dyn."))
        let second = try await Self.openError(TextDocument.self, bare)
        #expect(second.description.contains("it has no filename extension to tell its type"))
        let opened = try await DocumentController<TextDocument>(contentsOf: bare, contentType: .plainText)
        #expect(await opened.document.text == "x", "an explicit type opens a file without an extension")
    }

    @Test func textThatIsNotUTF8IsRefusedByTheDocument() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("binary.txt")
        try Disk.write(Data([0xC3, 0x28, 0xFF]), to: url)
        let error = try await Self.openError(TextDocument.self, url)
        #expect(error.code == .documentRefused)
        #expect(error.underlying as? CocoaError == CocoaError(.fileReadCorruptFile))
        #expect(error.description.hasPrefix("\"\(url.path)\": cannot be opened as public.plain-text: the document refused its contents: the contents are corrupt"))
    }

    @Test func aCorruptZipContainerIsRefused() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let garbage = directory.appending("Garbage.noteszip")
        try Disk.write("this is not a zip archive at all", to: garbage)
        let error = try await Self.openError(NotesDocument.self, garbage)
        #expect(error.code == .unreadable)
        #expect(error.description.hasPrefix("\"\(garbage.path)\": cannot be read as a zip container of type com.example.notes-archive: "))

        let truncated = directory.appending("Truncated.noteszip")
        try await DocumentController(newDocument: DocumentFixtures.notes(8)).save(to: truncated)
        let bytes = try Data(contentsOf: truncated)
        try bytes.prefix(bytes.count / 2).write(to: truncated)
        let cut = try await Self.openError(NotesDocument.self, truncated)
        #expect(cut.code == .unreadable || cut.code == .documentRefused)
        #expect(cut.description.hasPrefix("\"\(truncated.path)\": "))
    }

    @Test func aPackageMissingItsIndexIsRefused() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let package = directory.appending("Broken.notes")
        try Disk.write("orphan", to: package.appendingPathComponent("Notes/note-0.txt"))
        let error = try await Self.openError(NotesDocument.self, package)
        #expect(error.code == .documentRefused)
        #expect(error.description == "\"\(package.path)\": cannot be opened as com.example.notes: the document refused its contents: The notes package has no index.json. (the contents are corrupt or not in the document's format (CocoaError.fileReadCorruptFile))")
    }

    @Test func theWrongKindOnDiskIsRefused() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let folder = directory.appending("folder.txt")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let error = try await Self.openError(TextDocument.self, folder)
        #expect(error.description == "\"\(folder.path)\": cannot be opened: it is a directory, but type public.plain-text is stored as a flat file")

        let file = directory.appending("file.notes")
        try Disk.write("not a package", to: file)
        let packageError = try await Self.openError(NotesDocument.self, file)
        #expect(packageError.code == .wrongKind)
        #expect(packageError.description.contains("it is a file, but type com.example.notes is stored as a directory bundle"))
    }

    @Test func aMissingFileIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("nowhere.txt")
        let error = try await Self.openError(TextDocument.self, url)
        #expect(error.code == .unreadable)
        #expect(error.description.contains(url.path) && error.description.contains("No such file or directory"))
    }
}
