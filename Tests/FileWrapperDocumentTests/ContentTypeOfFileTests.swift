import FileWrapperDocument
import Testing
import TestSupport

/// What must hold (issue 24, item 4): the type of a file opened without
/// one is told as on Apple's systems, and an open that fails for want of a
/// registered type says how to register it.
@Suite struct ContentTypeOfFileTests {
    @Test func aFolderWithNoOrAnUnknownExtensionIsAPublicFolder() async throws {
        let directory = try TemporaryDirectory()
        for name in ["Project", "Photos.2024", "notes.txt"] {
            let folder = directory.appending(name)
            try Disk.write("a", to: folder.appendingPathComponent("a.txt"))
            try Disk.write("b", to: folder.appendingPathComponent("b.txt"))
            let controller = try await DocumentController<FolderDocument>(contentsOf: folder)
            #expect(await controller.contentType == .folder, "\(name)")
            #expect(await controller.document.names == ["a.txt", "b.txt"])
        }
    }

    @Test func aPackageIsItsPackageTypeNotAFolder() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        let package = directory.appending("Journal.notes")
        try await DocumentController(newDocument: DocumentFixtures.notes(1)).save(to: package)
        let error = try await #require(throws: DocumentError.self) {
            _ = try await DocumentController<FolderDocument>(contentsOf: package)
        }
        #expect(error.code == .unreadableContentType)
        #expect(error.description.contains("its type is com.example.notes"))
    }

    @Test func aFileOfAnUnregisteredTypeSaysHowToRegisterIt() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Plan.drawing")
        try Disk.write("{}", to: url)
        let error = try await #require(throws: DocumentError.self) {
            _ = try await DocumentController<UnregisteredDrawingDocument>(contentsOf: url)
        }
        #expect(error.code == .unreadableContentType)
        #expect(error.description.hasPrefix("\"\(url.path)\": cannot be opened: its type is dyn."))
        #expect(error.description.contains("com.example.unregistered-drawing is not registered, so no filename extension names it: register its declaration"))
        #expect(error.description.contains("UTType.registerDeclarations(contentsOf:)") && error.description.contains("UTType.register(_:)"))
        #expect(error.description.contains("or pass contentType:"))

        let opened = try await DocumentController<UnregisteredDrawingDocument>(contentsOf: url, contentType: .unregisteredDrawing)
        #expect(await opened.document.data == Data("{}".utf8), "as the message says, an explicit type opens it")
    }

    @Test func anExtensionNoRegisteredTypeHasSaysHowToRegisterOne() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("letter.qqq")
        try Disk.write("x", to: url)
        let error = try await #require(throws: DocumentError.self) {
            _ = try await DocumentController<TextDocument>(contentsOf: url)
        }
        #expect(error.description.contains("No registered type has this filename extension: register a declaration with it"))

        let png = directory.appending("photo.png")
        try Disk.write("x", to: png)
        let declared = try await #require(throws: DocumentError.self) {
            _ = try await DocumentController<TextDocument>(contentsOf: png)
        }
        #expect(!declared.description.contains("register"), "a declared type that the document does not read needs no registration")
    }
}
