import Foundation
import Testing
import TestSupport
@testable import FileWrapperKit

/// Deep and wide trees read, write, compare and free without recursion.
@Suite struct ScaleTests {
    /// The entries of the wide directory: 100,000 at full size, 10,000 in a
    /// reduced run (``TestSizes``), which goes through the same code. The
    /// depth is the same in every run: a sanitizer's larger stack frames
    /// make a recursion overflow sooner, not later.
    static let wide = TestSizes.pick(full: 100_000, reduced: 10_000)

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
        let count = Self.wide
        let directory = try TemporaryDirectory()
        let package = directory.appending("Wide.package")
        let root = FileWrapper(directoryWithFileWrappers: [:])
        for index in 0..<count {
            root.addRegularFile(withContents: Data(), preferredFilename: "entry-\(index)")
        }
        try root.write(to: package, options: [], originalContentsURL: nil)

        let read = try FileWrapper(url: package)
        #expect(read.fileWrappers?.count == count)
        #expect(read.fileWrappers?["entry-\(count - 1)"]?.isRegularFile == true)
    }
}
