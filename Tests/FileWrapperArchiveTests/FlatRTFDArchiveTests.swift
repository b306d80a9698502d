import FileWrapperKit
import Foundation
import Testing
import TestSupport
@testable import FileWrapperArchive

/// The flat RTFD read as a container (`FlatRTFDArchive`, what wrapinspect
/// reads) agrees with `FileWrapper(serializedRepresentation:)`, the
/// library's reader of the same bytes, and refuses every cut of a blob
/// with an error naming it, in process (the command line's tests are
/// WrapInspectTests' FlatRTFDCommandTests).
@Suite struct FlatRTFDArchiveTests {
    /// A small tree of every kind: nested, a link, an empty folder, an
    /// executable, a unique key.
    static func tree() -> FileWrapper {
        let run = FileWrapper(regularFileWithContents: Data("#!/bin/sh\n".utf8))
        run.attributes = .init(permissions: 0o755, modificationDate: FileTimestamp(seconds: 1_700_000_000))
        let tree = FileWrapper(directoryWithFileWrappers: [
            "sub": FileWrapper(directoryWithFileWrappers: ["inner.txt": FileWrapper(regularFileWithContents: Data("inner".utf8))]),
            "link": FileWrapper(symbolicLinkWithDestination: "sub/inner.txt"),
            "empty": FileWrapper(directoryWithFileWrappers: [:]),
            "run.sh": run,
        ])
        tree.addRegularFile(withContents: Data("again".utf8), preferredFilename: "link")
        tree.preferredFilename = "Small.package"
        return tree
    }

    @Test(arguments: ["ours", "Apple's sample"])
    func theTreeDigestIsTheLibraryReadersAndEveryCutIsRefused(blob source: String) throws {
        let blob = source == "ours" ? try #require(Self.tree().serializedRepresentation) : Data(FlatRTFDBytes.annotatedSample())
        let wrapper = try #require(FileWrapper(serializedRepresentation: blob))
        let expected = try Manifest(wrapper, name: "wrapper")

        let directory = try TemporaryDirectory("\(#function)-\(source)")
        let url = directory.appending("blob")
        try blob.write(to: url)
        let manifest = try Manifest(reading: url)
        #expect(manifest.treeDigest == expected.treeDigest)
        #expect(manifest.source.format == "flat RTFD" && manifest.source.kind == .archive)
        // Each child's permissions and time as the library reads them; the top directory has none.
        for entry in expected.entries.dropFirst() {
            let read = try #require(manifest.entry(at: entry.path), "\(PathDisplay.text(entry.path))")
            #expect(read.kind == entry.kind && read.permissions == entry.permissions && read.modified == entry.modified)
        }
        #expect(manifest.root.permissions == nil && manifest.root.modified == nil)

        for cut in 8..<blob.count {
            #expect(throws: ArchiveError.self, "cut to \(cut) bytes") {
                try FlatRTFDArchive(data: blob.prefix(cut), name: "blob", limits: .reading)
            }
        }
    }
}
