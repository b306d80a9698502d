// Code written the way document code for Apple's systems uses Foundation's
// FileWrapper. It needs nothing but `import FileWrapperKit` (and Foundation
// for URL and Data), and it must behave as it does there.
import FileWrapperKit
import Foundation
import Testing
import TestSupport

@Suite struct FoundationPatternsTests {
    @Test func buildAPackageInMemoryAndSaveIt() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Notes.package")

        let textWrapper = FileWrapper(regularFileWithContents: "Hello".data(using: .utf8)!)
        textWrapper.preferredFilename = "text.txt"
        let imagesWrapper = FileWrapper(directoryWithFileWrappers: [:])
        imagesWrapper.preferredFilename = "Images"
        let documentWrapper = FileWrapper(directoryWithFileWrappers: [:])
        documentWrapper.addFileWrapper(textWrapper)
        documentWrapper.addFileWrapper(imagesWrapper)
        imagesWrapper.addRegularFile(withContents: Data([0x89, 0x50, 0x4E, 0x47]), preferredFilename: "photo.png")
        let link = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: "Images/photo.png"))
        link.preferredFilename = "cover.png"
        documentWrapper.addFileWrapper(link)

        try documentWrapper.write(to: url, options: .atomic, originalContentsURL: nil)

        #expect(try String(contentsOf: url.appendingPathComponent("text.txt"), encoding: .utf8) == "Hello")
        #expect(try Data(contentsOf: url.appendingPathComponent("Images/photo.png")) == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: url.appendingPathComponent("cover.png").path) == "Images/photo.png")
        #expect(textWrapper.filename == nil, "without .withNameUpdating, filenames stay as they were")
    }

    @Test func readAPackageLazilyAndFindItsParts() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Notes.package")
        try Disk.write("Hello", to: url.appendingPathComponent("text.txt"))
        try FileManager.default.createSymbolicLink(atPath: url.appendingPathComponent("link").path, withDestinationPath: "text.txt")

        let wrapper = try FileWrapper(url: url, options: [])

        #expect(wrapper.isDirectory && !wrapper.isRegularFile && !wrapper.isSymbolicLink)
        #expect(wrapper.filename == "Notes.package")
        #expect(wrapper.preferredFilename == "Notes.package")
        guard let data = wrapper.fileWrappers?["text.txt"]?.regularFileContents,
              let text = String(data: data, encoding: .utf8) else {
            Issue.record("text.txt is missing")
            return
        }
        #expect(text == "Hello")
        let link = try #require(wrapper.fileWrappers?["link"])
        #expect(link.isSymbolicLink)
        #expect(link.symbolicLinkDestinationURL?.relativePath == "text.txt")
        #expect(link.regularFileContents == nil)
        #expect(wrapper.fileWrappers?["text.txt"]?.fileAttributes[FileAttributeKey.type.rawValue] as? FileAttributeType == .typeRegular)
        #expect(wrapper.fileWrappers?["text.txt"]?.fileAttributes[FileAttributeKey.size.rawValue] as? NSNumber == 5)
        #expect(wrapper.fileAttributes[FileAttributeKey.posixPermissions.rawValue] as? NSNumber == 0o755)
    }

    @Test func keysAreMadeUniqueTheWayFoundationMakesThem() {
        let folder = FileWrapper(directoryWithFileWrappers: [:])
        let first = folder.addRegularFile(withContents: Data("1".utf8), preferredFilename: "a.txt")
        let second = folder.addRegularFile(withContents: Data("2".utf8), preferredFilename: "a.txt")
        let third = folder.addRegularFile(withContents: Data("3".utf8), preferredFilename: "a.txt")

        #expect([first, second, third] == ["a.txt", "1__#$!@%!#__a.txt", "2__#$!@%!#__a.txt"])
        #expect(folder.fileWrappers?[second]?.regularFileContents == Data("2".utf8))
        #expect(folder.fileWrappers?[second]?.preferredFilename == "a.txt")
    }

    @Test func replaceAChildAndRenameAnother() throws {
        let folder = FileWrapper(directoryWithFileWrappers: [
            "index.json": FileWrapper(regularFileWithContents: Data("{}".utf8)),
            "notes.txt": FileWrapper(regularFileWithContents: Data("n".utf8)),
        ])
        #expect(folder.fileWrappers?["index.json"]?.preferredFilename == "index.json")

        // Replace: remove the old child, add the new one under the same name.
        let old = try #require(folder.fileWrappers?["index.json"])
        folder.removeFileWrapper(old)
        let key = folder.addRegularFile(withContents: Data("{\"v\":2}".utf8), preferredFilename: "index.json")
        #expect(key == "index.json")
        #expect(folder.keyForChildFileWrapper(old) == nil)

        // Rename: a new preferred filename re-keys the child in its parent.
        let notes = try #require(folder.fileWrappers?["notes.txt"])
        notes.preferredFilename = "index.json"
        #expect(folder.keyForChildFileWrapper(notes) == "1__#$!@%!#__index.json")
        notes.preferredFilename = "renamed.txt"
        #expect(folder.keyForChildFileWrapper(notes) == "renamed.txt")
        #expect(Set(folder.fileWrappers!.keys) == ["index.json", "renamed.txt"])
    }

    @Test func keyForChildComparesIdentityNotContents() {
        let folder = FileWrapper(directoryWithFileWrappers: [:])
        let child = FileWrapper(regularFileWithContents: Data("same".utf8))
        child.preferredFilename = "x"
        folder.addFileWrapper(child)
        let twin = FileWrapper(regularFileWithContents: Data("same".utf8))
        #expect(folder.keyForChildFileWrapper(child) == "x")
        #expect(folder.keyForChildFileWrapper(twin) == nil)
    }

    @Test func saveAtomicallyAndIncrementallyLikeADocument() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Notes.package")
        let document = FileWrapper(directoryWithFileWrappers: [:])
        document.addRegularFile(withContents: Data(count: 100_000), preferredFilename: "big.bin")
        document.addRegularFile(withContents: Data("v1".utf8), preferredFilename: "text.txt")
        try document.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: nil)
        #expect(document.filename == "Notes.package")
        #expect(document.fileWrappers?["big.bin"]?.filename == "big.bin")
        let bigInode = Disk.inode(url.appendingPathComponent("big.bin"))

        if let old = document.fileWrappers?["text.txt"] { document.removeFileWrapper(old) }
        document.addRegularFile(withContents: Data("v2".utf8), preferredFilename: "text.txt")
        try document.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: url)

        #expect(Disk.inode(url.appendingPathComponent("big.bin")) == bigInode)
        #expect(try String(contentsOf: url.appendingPathComponent("text.txt"), encoding: .utf8) == "v2")
        #expect(document.matchesContents(of: url))
    }

    @Test func matchesContentsNoticesChangesOnDisk() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Notes.package")
        try Disk.write("one", to: url.appendingPathComponent("a.txt"))
        let wrapper = try FileWrapper(url: url)
        #expect(wrapper.matchesContents(of: url))

        try Disk.write("two!", to: url.appendingPathComponent("a.txt"))
        #expect(!wrapper.matchesContents(of: url))

        try FileManager.default.removeItem(at: url.appendingPathComponent("a.txt"))
        #expect(!wrapper.matchesContents(of: url))
    }

    @Test func readFromUpdatesInPlaceAndKeepsTheChildObjects() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Notes.package")
        try Disk.write("one", to: url.appendingPathComponent("kept.txt"))
        try Disk.write("gone", to: url.appendingPathComponent("removed.txt"))
        let wrapper = try FileWrapper(url: url)
        let kept = try #require(wrapper.fileWrappers?["kept.txt"])

        try Disk.write("one, edited", to: url.appendingPathComponent("kept.txt"))
        try FileManager.default.removeItem(at: url.appendingPathComponent("removed.txt"))
        try Disk.write("new", to: url.appendingPathComponent("added.txt"))
        try wrapper.read(from: url)

        #expect(wrapper.fileWrappers?["kept.txt"] === kept)
        #expect(kept.regularFileContents == Data("one, edited".utf8))
        #expect(Set(wrapper.fileWrappers!.keys) == ["kept.txt", "added.txt"])
    }

    @Test func fileAttributesRoundTripThroughTheDictionary() throws {
        let file = FileWrapper(regularFileWithContents: Data("x".utf8))
        file.attributes.modificationDate = FileTimestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789)
        var attributes = file.fileAttributes
        attributes[FileAttributeKey.posixPermissions.rawValue] = NSNumber(value: 0o600)
        file.fileAttributes = attributes

        #expect(file.attributes.permissions == 0o600)
        #expect(file.attributes.modificationDate == FileTimestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789))
    }
}
