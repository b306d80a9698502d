import FileWrapperDocument
import Foundation
import Glibc
import Testing
import TestSupport

/// Every save is atomic: a save that fails midway, for want of space or
/// because the document could not serialize, leaves the previous version
/// whole, the document's unsaved changes kept, and nothing behind.
@Suite(.startsProcesses) struct AtomicSaveTests {
    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs needs root"), arguments: ["Doc.txt", "Doc.notes", "Doc.noteszip"])
    func aSaveThatRunsOutOfSpaceLeavesThePreviousVersion(name: String) async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let mount = try Disk.mountTmpfs(size: "1m", named: "small", in: directory)
        defer { Disk.unmount(mount) }
        let url = mount.appendingPathComponent(name)
        // 1.5 MB of random printable bytes: more than the 1 MB file system
        // holds, even deflated in a zip container.
        var generator = SplitMix64(seed: 20)
        let big = String(decoding: generator.bytes(1_500_000, in: 33...126), as: UTF8.self)

        if name.hasSuffix(".txt") {
            try await DocumentController(newDocument: TextDocument(text: "small version")).save(to: url)
            let controller = try await DocumentController<TextDocument>(contentsOf: url)
            try await controller.update { $0.text = big }
            let error = try await #require(throws: DocumentError.self) { try await controller.save() }
            #expect(error.code == .writeFailed)
            #expect(error.description.hasPrefix("\"\(url.path)\": cannot be saved as a flat file; the previous version is unchanged: "))
            #expect(await controller.hasUnsavedChanges)
            #expect(try Disk.text(url) == "small version")
        } else {
            try await DocumentController(newDocument: DocumentFixtures.notes(3)).save(to: url)
            let controller = try await DocumentController<NotesDocument>(contentsOf: url)
            try await controller.update { $0.setNote("note-1", big) }
            let error = try await #require(throws: DocumentError.self) { try await controller.save() }
            #expect(error.code == .writeFailed && error.path == url.path)
            let reopened = try await DocumentController<NotesDocument>(contentsOf: url)
            #expect(await reopened.document.notes == DocumentFixtures.notes(3).notes)
        }
        #expect(try Disk.names(in: mount) == [name], "a temporary was left behind")
    }

    @Test func aSaveWhoseSerializationFailsWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Strict.txt")
        try Disk.write("fine", to: url)
        let controller = try await DocumentController<ASCIIDocument>(contentsOf: url)
        try await controller.update { $0.text = "not ASCII: é" }
        let error = try await #require(throws: DocumentError.self) { try await controller.save() }
        #expect(error.code == .serializationFailed)
        #expect(error.description.hasPrefix("\"\(url.path)\": cannot be saved: the document could not make its file wrapper: "))
        #expect(try Disk.text(url) == "fine")
        #expect(await controller.hasUnsavedChanges)
        #expect(try Disk.names(in: directory.url) == ["Strict.txt"])
    }

    @Test func aSaveFromAPackageWhoseFilesVanishedLeavesTheDestinationWhole() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let source = directory.appending("Source.notes")
        let destination = directory.appending("Destination.notes")
        try await DocumentController(newDocument: DocumentFixtures.notes(3)).save(to: source)
        try await DocumentController(newDocument: DocumentFixtures.notes(5)).save(to: destination)
        let destinationBefore = try DiskTree(destination)

        // A package document that keeps its note files as they are on disk
        // and reads them only when saving: a file read lazily.
        let controller = try await DocumentController<LazyNotesDocument>(contentsOf: source)
        try FileManager.default.removeItem(at: source.appendingPathComponent("Notes/note-1.txt"))
        let error = try await #require(throws: DocumentError.self) { try await controller.save(to: destination) }
        #expect(error.code == .writeFailed || error.code == .serializationFailed)
        #expect(error.description.contains("note-1.txt"), "\(error)")
        #expect(try DiskTree(destination) == destinationBefore)
        #expect(await controller.fileURL == source)
        #expect(try Disk.names(in: directory.url) == ["Destination.notes", "Source.notes"])
    }
}

/// A package document that passes its files through untouched: it keeps
/// none of their bytes, and a save hands the files of `existingFile` on,
/// so they are read only when written.
struct LazyNotesDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.notesPackage] }

    init(configuration: ReadConfiguration) throws {
        guard configuration.file.fileWrappers?["index.json"] != nil else { throw CocoaError(.fileReadCorruptFile) }
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        guard let existing = configuration.existingFile else { throw CocoaError(.fileWriteUnknown) }
        return existing
    }
}

/// A text document that writes only ASCII, to make a serialization fail.
struct ASCIIDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.plainText] }
    var text: String

    init(configuration: ReadConfiguration) throws {
        text = String(decoding: configuration.file.regularFileContents ?? Data(), as: UTF8.self)
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        guard let data = text.data(using: .ascii) else { throw CocoaError(.fileWriteInapplicableStringEncoding) }
        return FileWrapper(regularFileWithContents: data)
    }
}
