import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// Names Swift cannot keep apart are refused with an error that names the
/// paths, never dropped or merged.
@Suite struct NameTests {
    @Test func canonicallyEquivalentNamesInOneDirectoryAreRefused() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        try Disk.write("composed", to: package.appendingPathComponent("caf\u{E9}.txt"))
        try Disk.write("decomposed", to: package.appendingPathComponent("cafe\u{301}.txt"))
        #expect(try Disk.names(in: package).count == 2, "the file system keeps both spellings")

        let error = try FileWrapperError.thrown { try FileWrapper(url: package) }
        #expect(error.code == .duplicateName)
        let message = String(describing: error)
        #expect(message.contains("Doc.package/caf\\u{E9}.txt"), "\(message)")
        #expect(message.contains("Doc.package/cafe\\u{301}.txt"), "\(message)")
    }

    @Test func aNameThatIsNotUTF8IsRefusedAndShownEscaped() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let name: [UInt8] = Array("bad-".utf8) + [0xFF, 0xFE] + Array(".txt".utf8)
        let fd = open(package.path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        let created = (name + [0]).withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { openat(fd, $0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        try #require(created >= 0)
        close(created)

        let error = try FileWrapperError.thrown { try FileWrapper(url: package) }
        #expect(error.code == .invalidName)
        #expect(String(describing: error).contains("Doc.package/bad-\\xFF\\xFE.txt"))
    }

    @Test func nonASCIINamesKeepTheirExactBytes() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        let decomposed = "Re\u{301}sume\u{301}.md"
        try Disk.write("x", to: package.appendingPathComponent(decomposed))
        let copy = directory.appending("Copy.package")

        try FileWrapper(url: package).write(to: copy, options: .atomic, originalContentsURL: nil)

        let names = try FileManager.default.contentsOfDirectory(atPath: copy.path)
        #expect(names.map { Array($0.utf8) } == [Array(decomposed.utf8)])
    }

    @Test func aKeyThatIsNotAFileNameIsRefusedOnWrite() throws {
        let directory = try TemporaryDirectory()
        let folder = FileWrapper(directoryWithFileWrappers: ["a/b": FileWrapper(regularFileWithContents: Data())])
        let error = try FileWrapperError.thrown {
            try folder.write(to: directory.appending("Out"), options: [], originalContentsURL: nil)
        }
        #expect(error.code == .invalidName)
        #expect(error.path.hasSuffix("Out/a/b"))
        #expect(try Disk.names(in: directory.url).isEmpty, "the partial write was not removed")
    }
}
