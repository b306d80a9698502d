import FileWrapperDocument
import Testing
import TestSupport

/// A store that reads and writes the album package through
/// NSFileCoordinator, as Apple-style app code does, beside a
/// DocumentController that opens and saves the same package.
@Suite @MainActor struct AlbumStoreScenarioTests {
    @Test func aCoordinatedStoreAndAControllerShareThePackage() async throws {
        ExampleTypes.register()
        let directory = try TemporaryDirectory()
        let url = directory.appending("Shared.album")
        try await DocumentController(newDocument: AlbumDocument(title: "Shared")).save(to: url)
        let store = AlbumStore(url: url)

        let package = try store.read()
        package.addRegularFile(withContents: Data("from the store".utf8), preferredFilename: "note.txt")
        try store.write(package)

        let controller = try await DocumentController<AlbumDocument>(contentsOf: url)
        #expect(await controller.document.title == "Shared")
        try await controller.update { $0.title = "Saved by the controller" }
        try await controller.save()
        #expect(try store.read().fileWrappers?["note.txt"] == nil, "the album writes its own files")
        #expect(try Disk.names(in: directory.url) == ["Shared.album"])
    }
}
