import FileWrapperDocument
import Testing
import TestSupport

/// The package value document that returns the existing file's children
/// for the images that did not change: the save keeps their files.
@Suite @MainActor struct AlbumScenarioTests {
    @Test func unchangedImagesKeepTheirFilesAcrossSaves() async throws {
        ExampleTypes.register()
        let directory = try TemporaryDirectory()
        let url = directory.appending("Trip.album")
        var random = SplitMix64(seed: 24)
        var album = AlbumDocument(title: "Trip")
        for name in ["beach.jpg", "hills.jpg", "town.jpg"] {
            album.addImage(Data(random.bytes(4096)), named: name)
        }
        try await DocumentController(newDocument: album).save(to: url)
        let images = url.appendingPathComponent("Images")
        let before = try Disk.names(in: images).map { ($0, Disk.inode(images.appendingPathComponent($0))) }
        #expect(before.map(\.0) == ["beach.jpg", "hills.jpg", "town.jpg"])

        let reopened = try await DocumentController<AlbumDocument>(contentsOf: url)
        let replacement = Data(random.bytes(2048))
        try await reopened.update { $0.addImage(replacement, named: "hills.jpg") }
        try await reopened.update { $0.removeImages(atOffsets: [2]) }
        try await reopened.update { $0.removeImages(atOffsets: [0]) }
        reopened.undoManager.undo()
        #expect(await reopened.document.imageNames == ["beach.jpg", "hills.jpg"])
        try await reopened.save()

        let after = Dictionary(uniqueKeysWithValues: try Disk.names(in: images).map { ($0, Disk.inode(images.appendingPathComponent($0))) })
        #expect(after.keys.sorted() == ["beach.jpg", "hills.jpg"])
        #expect(after["beach.jpg"] == before[0].1, "the unchanged image was written again")
        #expect(after["hills.jpg"] != before[1].1)

        let third = try await DocumentController<AlbumDocument>(contentsOf: url).document
        #expect(third.imageNames == ["beach.jpg", "hills.jpg"])
        #expect(third.images["hills.jpg"] == replacement)
        #expect(third.images["beach.jpg"] == album.images["beach.jpg"])
    }
}
