import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// Opening a package reads no file contents: a 4 GiB file costs nothing
/// until it is asked for.
@Suite struct LazinessTests {
    @Test func openingAPackageWithAMultiGigabyteFileReadsNoneOfIt() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Big.package")
        try Disk.write("{}", to: package.appendingPathComponent("index.json"))
        let big = package.appendingPathComponent("Media/huge.raw")
        try Disk.write("", to: big)
        #expect(truncate(big.path, 4 << 30) == 0)

        let (wrapper, read) = try ThreadIO.bytesRead { try FileWrapper(url: package) }

        let huge = try #require(wrapper.fileWrappers?["Media"]?.fileWrappers?["huge.raw"])
        #expect(!huge.isRegularFileContentsLoaded)
        #expect((huge.fileAttributes[FileAttributeKey.size.rawValue] as? NSNumber)?.int64Value == 4 << 30)
        #expect(read < 64 * 1024, "opening read \(read) bytes")

        let index = try #require(wrapper.fileWrappers?["index.json"])
        #expect(try index.readRegularFileContents() == Data("{}".utf8))
        #expect(index.isRegularFileContentsLoaded)
        #expect(!huge.isRegularFileContentsLoaded)
    }

    @Test func aLazyFileChangedOnDiskIsAnErrorNotOtherBytes() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        try Disk.write("first", to: package.appendingPathComponent("a.txt"))
        let wrapper = try FileWrapper(url: package)
        try Disk.write("second version", to: package.appendingPathComponent("a.txt"))

        let file = try #require(wrapper.fileWrappers?["a.txt"])
        #expect(file.regularFileContents == nil)
        let error = try #require(throws: FileWrapperError.self) { try file.readRegularFileContents() }
        #expect(error.code == .changedOnDisk)
        #expect(error.path.hasSuffix("Doc.package/a.txt"))
    }

    @Test func lazyContentsSurviveAnAtomicSaveInPlace() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        try Disk.write("kept", to: package.appendingPathComponent("a.txt"))
        try Disk.write("other", to: package.appendingPathComponent("b.txt"))
        let wrapper = try FileWrapper(url: package)
        wrapper.addRegularFile(withContents: Data("new".utf8), preferredFilename: "c.txt")

        try wrapper.write(to: package, options: .atomic, originalContentsURL: nil)

        let file = try #require(wrapper.fileWrappers?["a.txt"])
        #expect(!file.isRegularFileContentsLoaded)
        #expect(try file.readRegularFileContents() == Data("kept".utf8))
    }
}
