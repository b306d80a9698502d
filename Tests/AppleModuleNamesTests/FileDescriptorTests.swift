// swift-system as Apple's samples use it, with `import System`.
import Foundation
import System
import Testing
import TestSupport

@Suite struct FileDescriptorTests {
    @Test func writeAndReadThroughFilePath() throws {
        let directory = try TemporaryDirectory()
        let path = FilePath(directory.url.path).appending("notes.txt")
        let output = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite)
        try output.closeAfter { _ = try output.writeAll("hello, System".utf8) }
        let input = try FileDescriptor.open(path, .readOnly)
        let text = try input.closeAfter {
            try String(unsafeUninitializedCapacity: 64) { try input.read(into: UnsafeMutableRawBufferPointer($0)) }
        }
        #expect(text == "hello, System")
        #expect(path.lastComponent?.extension == "txt")
        #expect(throws: Errno.fileExists) {
            try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite)
        }
    }
}
