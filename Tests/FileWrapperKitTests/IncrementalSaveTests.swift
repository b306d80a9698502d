import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// Saving with `originalContentsURL` hard-links the files that did not
/// change and writes only the change.
@Suite(.startsProcesses) struct IncrementalSaveTests {
    static func makePackage(at url: URL, files: Int = 40) throws {
        for index in 0..<files {
            try Disk.write(String(repeating: "page \(index) ", count: 500), to: url.appendingPathComponent("Pages/page-\(index).txt"))
        }
        try Disk.write("{\"pages\": \(files)}", to: url.appendingPathComponent("index.json"))
    }

    /// Replaces a child of `directory` with a new regular file, as document code does.
    static func replace(_ name: String, in directory: FileWrapper, with text: String) {
        if let old = directory.fileWrappers?[name] {
            directory.removeFileWrapper(old)
        }
        directory.addRegularFile(withContents: Data(text.utf8), preferredFilename: name)
    }

    @Test func savingInPlaceLinksUnchangedFilesAndRewritesTheChange() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        try Self.makePackage(at: package)
        let inodesBefore = try Dictionary(uniqueKeysWithValues: Disk.names(in: package.appendingPathComponent("Pages")).map {
            ($0, Disk.inode(package.appendingPathComponent("Pages/\($0)")))
        })
        let indexInodeBefore = Disk.inode(package.appendingPathComponent("index.json"))

        let document = try FileWrapper(url: package)
        Self.replace("index.json", in: document, with: "{\"pages\": 40, \"edited\": true}")
        try document.write(to: package, options: [.atomic, .withNameUpdating], originalContentsURL: package)

        for (name, inode) in inodesBefore {
            #expect(Disk.inode(package.appendingPathComponent("Pages/\(name)")) == inode, "\(name) was rewritten")
        }
        #expect(Disk.inode(package.appendingPathComponent("index.json")) != indexInodeBefore)
        #expect(try String(contentsOf: package.appendingPathComponent("index.json"), encoding: .utf8).contains("edited"))
        #expect(try Disk.names(in: directory.url) == ["Doc.package"], "a temporary or the old tree was left behind")
    }

    @Test func aSecondIncrementalSaveAlsoLinksWhatTheFirstWrote() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        try Self.makePackage(at: package, files: 5)
        let document = try FileWrapper(url: package)

        Self.replace("index.json", in: document, with: "first edit")
        try document.write(to: package, options: [.atomic, .withNameUpdating], originalContentsURL: package)
        let indexInode = Disk.inode(package.appendingPathComponent("index.json"))

        let pages = try #require(document.fileWrappers?["Pages"])
        Self.replace("page-0.txt", in: pages, with: "second edit")
        try document.write(to: package, options: [.atomic, .withNameUpdating], originalContentsURL: package)

        #expect(Disk.inode(package.appendingPathComponent("index.json")) == indexInode)
        #expect(try String(contentsOf: package.appendingPathComponent("Pages/page-0.txt"), encoding: .utf8) == "second edit")
    }

    @Test func savingToANewPlaceSharesTheUnchangedInodes() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        try Self.makePackage(at: package, files: 3)
        let document = try FileWrapper(url: package)
        Self.replace("index.json", in: document, with: "changed")

        let saved = directory.appending("Saved.package")
        try document.write(to: saved, options: .atomic, originalContentsURL: package)

        #expect(Disk.inode(saved.appendingPathComponent("Pages/page-1.txt")) == Disk.inode(package.appendingPathComponent("Pages/page-1.txt")))
        #expect(Disk.linkCount(saved.appendingPathComponent("Pages/page-1.txt")) == 2)
        #expect(Disk.linkCount(saved.appendingPathComponent("index.json")) == 1)
        #expect(try DiskTree(saved).entries["Pages/page-2.txt"] == DiskTree(package).entries["Pages/page-2.txt"])
    }

    @Test func aFileWhoseAttributesChangedIsWrittenNotLinked() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        try Self.makePackage(at: package, files: 2)
        let document = try FileWrapper(url: package)
        let page = try #require(document.fileWrappers?["Pages"]?.fileWrappers?["page-0.txt"])
        page.attributes.permissions = 0o600

        let saved = directory.appending("Saved.package")
        try document.write(to: saved, options: [], originalContentsURL: package)

        #expect(Disk.inode(saved.appendingPathComponent("Pages/page-0.txt")) != Disk.inode(package.appendingPathComponent("Pages/page-0.txt")))
        #expect(try DiskTree(package).entries["Pages/page-0.txt"]?.mode == 0o644, "the original's mode was changed through a link")
        #expect(try DiskTree(saved).entries["Pages/page-0.txt"]?.mode == 0o600)
        #expect(Disk.inode(saved.appendingPathComponent("Pages/page-1.txt")) == Disk.inode(package.appendingPathComponent("Pages/page-1.txt")))
    }

    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs needs root"))
    func acrossFileSystemsUnchangedFilesAreCopied() throws {
        let directory = try TemporaryDirectory()
        let mountPoint = try Disk.mountTmpfs(size: "8m", named: "tmpfs", in: directory)
        defer { Disk.unmount(mountPoint) }
        let package = directory.appending("Doc.package")
        try Self.makePackage(at: package, files: 3)
        let document = try FileWrapper(url: package)

        let saved = mountPoint.appendingPathComponent("Saved.package")
        try document.write(to: saved, options: .atomic, originalContentsURL: package)

        #expect(Disk.linkCount(saved.appendingPathComponent("Pages/page-1.txt")) == 1)
        #expect(try DiskTree(saved) == DiskTree(package))
    }
}
