// Foundation's deprecated path members of FileWrapper, on real files,
// called through TestSupport's DeprecatedFileWrapperPaths (no warnings).
import FileWrapperKit
import Foundation
import Testing
import TestSupport

@Suite struct FileWrapperPathMembersTests {
    private func package(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.appending("Notes.package")
        try Disk.write("Hello", to: url.appendingPathComponent("text.txt"))
        try Disk.write("deep", to: url.appendingPathComponent("Folder/deep.txt"))
        try FileManager.default.createSymbolicLink(atPath: url.appendingPathComponent("link").path, withDestinationPath: "text.txt")
        return url
    }

    @Test func needsToBeUpdatedComparesDatesPermissionsMembersAndTargets() throws {
        let directory = try TemporaryDirectory()
        let url = try package(in: directory)
        let path = url.path
        let paths: any DeprecatedFileWrapperPaths = try #require(fileWrapper(atPath: path))
        #expect(!paths.needsToBeUpdated(fromPath: path))

        Disk.setModificationTime(url.appendingPathComponent("Folder/deep.txt"), seconds: 1_000_000, nanoseconds: 5)
        #expect(paths.needsToBeUpdated(fromPath: path), "a nested file's date changed")
        #expect(paths.update(fromPath: path))
        #expect(!paths.needsToBeUpdated(fromPath: path))
        #expect(!paths.update(fromPath: path), "nothing to update")

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.appendingPathComponent("text.txt").path)
        #expect(paths.needsToBeUpdated(fromPath: path), "permissions changed")
        #expect(paths.update(fromPath: path))

        try FileManager.default.removeItem(at: url.appendingPathComponent("link"))
        try FileManager.default.createSymbolicLink(atPath: url.appendingPathComponent("link").path, withDestinationPath: "Folder")
        #expect(paths.needsToBeUpdated(fromPath: path), "the link's target changed")
        #expect(paths.update(fromPath: path))

        try Disk.write("new", to: url.appendingPathComponent("added.txt"))
        #expect(paths.needsToBeUpdated(fromPath: path), "a member was added")
        #expect(paths.update(fromPath: path))
        #expect((paths as? FileWrapper)?.fileWrappers?["added.txt"]?.regularFileContents == Data("new".utf8))

        #expect(paths.needsToBeUpdated(fromPath: directory.appending("missing").path))
        #expect(!paths.update(fromPath: directory.appending("missing").path))
        #expect(fileWrapper(atPath: directory.appending("missing").path) == nil)
    }

    @Test func aWrapperMadeInMemoryNeedsUpdatingUntilItHasTheDiskDates() throws {
        let directory = try TemporaryDirectory()
        let url = try package(in: directory)
        let inMemory: any DeprecatedFileWrapperPaths = FileWrapper(directoryWithFileWrappers: [:])
        #expect(inMemory.needsToBeUpdated(fromPath: url.path))
    }

    @Test func writeToFileAddFileAndAddSymbolicLink() throws {
        let directory = try TemporaryDirectory()
        let source = try package(in: directory)
        let root = FileWrapper(directoryWithFileWrappers: [:])
        let paths: any DeprecatedFileWrapperPaths = root

        #expect(paths.addFile(withPath: source.appendingPathComponent("text.txt").path) == "text.txt")
        #expect(paths.addFile(withPath: source.appendingPathComponent("text.txt").path) == "1__#$!@%!#__text.txt")
        #expect(paths.addFile(withPath: directory.appending("missing").path) == "", "nothing to add")
        #expect(paths.addSymbolicLink(withDestination: "text.txt", preferredFilename: "alias") == "alias")
        #expect(root.fileWrappers?.count == 3)

        let written = directory.appending("Copy.package")
        #expect(paths.write(toFile: written.path, atomically: true, updateFilenames: true))
        #expect(try Data(contentsOf: written.appendingPathComponent("text.txt")) == Data("Hello".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: written.appendingPathComponent("alias").path) == "text.txt")
        #expect(root.filename == "Copy.package", "updateFilenames names the wrapper")

        let nowhere = directory.appending("no/such/folder/Copy.package")
        #expect(!paths.write(toFile: nowhere.path, atomically: false, updateFilenames: false))
        #expect(!FileManager.default.fileExists(atPath: nowhere.path))
    }
}
