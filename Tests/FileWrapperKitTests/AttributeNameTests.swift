import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Extended attribute names as bytes (issue 22): Linux keeps a name that is
/// not UTF-8, and an NFC and an NFD name, as different attributes. A
/// manifest keeps each with its value, the metadata digest tells them
/// apart, and the JSON manifests give them back. Attributes set by Python
/// (`os.setxattr` with names as bytes).
@Suite(.startsProcesses) struct AttributeNameTests {
    static let names: [[UInt8]] = [
        Array("user.".utf8) + [0xFF], Array("user.".utf8) + [0xFE],
        Array("user.".utf8) + [0xC3, 0xA9], Array("user.e".utf8) + [0xCC, 0x81],
    ]

    /// A directory holding `f`, whose attributes are `names` with `values`.
    static func tree(values: [String], in directory: TemporaryDirectory, named name: String) throws -> URL {
        let root = directory.appending(name)
        try Disk.write("contents", to: root.appendingPathComponent("f"))
        let pairs = zip(names, values).map { "(bytes(\($0.0)), b'\($0.1)')" }.joined(separator: ", ")
        let script = "import os, sys\nfor name, value in [\(pairs)]: os.setxattr(sys.argv[1], name, value)"
        let result = try Disk.run("/usr/bin/env", ["python3", "-c", script, root.appendingPathComponent("f").path])
        try #require(result.status == 0, "\(result.stderr)")
        return root
    }

    @Test func everyAttributeKeepsItsValue() throws {
        let directory = try TemporaryDirectory()
        let root = try Self.tree(values: ["one", "two", "three", "four"], in: directory, named: "tree")
        let manifest = try Manifest(contentsOf: root)
        let attributes = try #require(manifest.entry(at: Array("f".utf8))?.extendedAttributes)
        #expect(attributes.count == 4)
        for (name, value) in zip(Self.names, ["one", "two", "three", "four"]) {
            #expect(attributes[ExtendedAttributeName(name)] == Array(value.utf8), "\(PathDisplay.text(name))")
        }
        for format in [ManifestFileFormat.json, .jsonLines] {
            let read = try Manifest(decoding: manifest.encoded(as: format), name: "manifest")
            #expect(read.entry(at: Array("f".utf8))?.extendedAttributes == attributes, "\(format)")
            #expect(read.metadataDigest == manifest.metadataDigest, "\(format)")
        }
    }

    /// Two trees whose file swaps the values of two attributes digest
    /// differently, for names that are not UTF-8 and for NFC and NFD names.
    @Test(arguments: [(0, 1), (2, 3)])
    func swappedValuesDigestDifferently(first: Int, second: Int) throws {
        let directory = try TemporaryDirectory()
        var values = ["one", "two", "three", "four"]
        let before = try Manifest(contentsOf: Self.tree(values: values, in: directory, named: "before"))
        values.swapAt(first, second)
        let after = try Manifest(contentsOf: Self.tree(values: values, in: directory, named: "after"))
        #expect(before.treeDigest == after.treeDigest)
        #expect(before.metadataDigest != after.metadataDigest)
    }
}
