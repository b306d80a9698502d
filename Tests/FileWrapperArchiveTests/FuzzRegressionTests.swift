import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing

/// Inputs that `Tools/run-fuzzers.sh` found (`Fixtures/Fuzz/fuzz-archive`),
/// each read as the fuzz target reads it: into a FileWrapper and into a
/// manifest, which must describe one tree.
@Suite struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Fuzz/fuzz-archive")

    /// A zip whose symlink `symlink` points at `../\xC0arget`, a target that
    /// is not UTF-8. The FileWrapper reader made it a `String`, which put
    /// U+FFFD in place of the byte, so the two readers gave two tree digests.
    @Test func symlinkTargetThatIsNotUTF8IsKeptByteForByte() throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent("symlink-target-not-utf8.zip"))
        let wrapper = try ArchiveReader.fileWrapper(from: data, name: "fuzz")
        let target = Array("../".utf8) + [0xC0] + Array("arget".utf8)
        #expect(wrapper.fileWrappers?["symlink"]?.symbolicLinkDestinationBytes == target)
        let archived = try Manifest(archiveData: data, name: "fuzz")
        #expect(archived.entry(at: Array("symlink".utf8))?.linkTarget == target)
        #expect(try Manifest(wrapper, name: "fuzz").treeDigest == archived.treeDigest)
    }
}
