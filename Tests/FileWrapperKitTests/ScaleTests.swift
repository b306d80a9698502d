import Foundation
import Testing
import TestSupport
@testable import FileWrapperKit

/// Deep and wide trees read, write, compare and free without recursion.
@Suite struct ScaleTests {
    @Test func aTreeTenThousandDirectoriesDeep() throws {
        let depth = 10_000
        let directory = try TemporaryDirectory()
        let package = directory.appending("Deep.package")

        let root = FileWrapper(directoryWithFileWrappers: [:])
        var level = root
        for _ in 0..<depth {
            let next = FileWrapper(directoryWithFileWrappers: [:])
            next.preferredFilename = "d"
            level.addFileWrapper(next)
            level = next
        }
        level.addRegularFile(withContents: Data("bottom".utf8), preferredFilename: "leaf.txt")
        try root.write(to: package, options: .atomic, originalContentsURL: nil)

        let read = try FileWrapper(url: package)
        var node = read
        var levels = 0
        while let next = node.fileWrappers?["d"] {
            node = next
            levels += 1
        }
        #expect(levels == depth)
        let leaf = try #require(node.fileWrappers?["leaf.txt"])
        #expect(try leaf.readRegularFileContents() == Data("bottom".utf8))
        #expect(read.matchesContents(of: package))

        try read.write(to: directory.appending("Copy.package"), options: [], originalContentsURL: package)
    }

    @Test func aDirectoryOfAHundredThousandEntries() throws {
        let count = 100_000
        let directory = try TemporaryDirectory()
        let package = directory.appending("Wide.package")
        let root = FileWrapper(directoryWithFileWrappers: [:])
        for index in 0..<count {
            root.addRegularFile(withContents: Data(), preferredFilename: "entry-\(index)")
        }
        try root.write(to: package, options: [], originalContentsURL: nil)

        let read = try FileWrapper(url: package)
        #expect(read.fileWrappers?.count == count)
        #expect(read.fileWrappers?["entry-99999"]?.isRegularFile == true)
    }
}
