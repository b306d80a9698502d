import Foundation
import Testing
import TestSupport
@testable import FileWrapperKit

/// `serializedRepresentation` writes Apple's serialized file wrapper (the
/// flat RTFD, shared/formats/flat-rtfd.md) and `init(serializedRepresentation:)`
/// reads it by Apple's rules: checked against a reader written in Python
/// from the layout document (``FlatRTFDPythonReader``), against the
/// document's annotated sample, and against blobs built here field by
/// field. Damaged blobs are FileWrapperArchiveTests' FlatRTFDHostileInputTests.
@Suite(.startsProcesses) struct FlatRTFDTests {
    static let time = FileTimestamp(seconds: 1_700_000_000, nanoseconds: 250_000_000)
    static let unique = "__#$!@%!#__"

    /// Nested folders, a file, a link, an empty folder, two children with
    /// one preferred name, an NFD name, a 5 MiB file and an undated one.
    static func everyShape() -> FileWrapper {
        func dated(_ wrapper: FileWrapper, _ permissions: UInt16? = nil) -> FileWrapper {
            wrapper.attributes = .init(permissions: permissions, modificationDate: time)
            return wrapper
        }
        func file(_ text: String, _ permissions: UInt16 = 0o644) -> FileWrapper {
            dated(FileWrapper(regularFileWithContents: Data(text.utf8)), permissions)
        }
        var random = SplitMix64(seed: 35)
        let root = FileWrapper(directoryWithFileWrappers: [
            "Folder": dated(FileWrapper(directoryWithFileWrappers: [
                "Inner": dated(FileWrapper(directoryWithFileWrappers: ["deep.txt": file("deep")]), 0o700),
            ]), 0o755),
            "notes.txt": file("notes", 0o600),
            "latest": dated(FileWrapper(symbolicLinkWithDestination: "Folder/Inner/deep.txt")),
            "Empty": dated(FileWrapper(directoryWithFileWrappers: [:]), 0o755),
            "Cafe\u{301}.md": file("decomposed"),
            "big.bin": dated(FileWrapper(regularFileWithContents: Data(random.bytes(5 << 20))), 0o644),
            "undated.txt": FileWrapper(regularFileWithContents: Data("no date".utf8)),
        ])
        root.addRegularFile(withContents: Data("first".utf8), preferredFilename: "dup.txt")
        root.addRegularFile(withContents: Data("second".utf8), preferredFilename: "dup.txt")
        root.preferredFilename = "Every Shape.package"
        return root
    }

    /// The wrappers of `root` as the Python reader lists them: the keys'
    /// bytes in hex joined by `/`, kind, permissions (ours where unset),
    /// whole seconds (0 where undated), SHA-256 or link target.
    static func entries(_ root: FileWrapper) -> [String] {
        var lines: [String] = []
        func line(_ path: String, _ wrapper: FileWrapper) -> String {
            let mode = String(wrapper.attributes.permissions ?? wrapper.defaultPermissions, radix: 8)
            let prefix = "\(path) \(wrapper.isDirectory ? "directory" : wrapper.isSymbolicLink ? "link" : "file") \(mode) \(wrapper.attributes.modificationDate?.seconds ?? 0)"
            if let target = wrapper.symbolicLinkDestinationBytes { return prefix + " -> " + hex(target) }
            if wrapper.isRegularFile { return prefix + " " + SHA256Digest.of(wrapper.regularFileContents!).hex }
            return prefix
        }
        func walk(_ directory: FileWrapper, _ path: String) {
            for (key, child) in directory.fileWrappers! {
                let childPath = (path.isEmpty ? "" : path + "/") + hex(Array(key.utf8))
                lines.append(line(childPath, child))
                if child.isDirectory { walk(child, childPath) }
            }
        }
        if root.isDirectory { walk(root, "") } else { lines.append(line("", root)) }
        return lines.sorted()
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// `entries` with every time cut to whole seconds: what the format keeps.
    static func wholeSeconds(_ root: FileWrapper) -> FileWrapper {
        var pending = [root]
        while let next = pending.popLast() {
            if let date = next.attributes.modificationDate { next.attributes.modificationDate = FileTimestamp(seconds: date.seconds) }
            if next.isDirectory { pending += next.fileWrappers!.values }
        }
        return root
    }

    static func pythonReading(of data: Data, _ name: String = #function) throws -> FlatRTFDPythonReader.Reading {
        let directory = try TemporaryDirectory(name)
        let path = directory.appending("blob.rtfd").path
        try data.write(to: URL(fileURLWithPath: path))
        return try FlatRTFDPythonReader.read(path)
    }

    // MARK: - Round trips

    @Test func everyShapeRoundTripsThroughOursAndThePythonReader() throws {
        let tree = Self.everyShape()
        let data = try #require(tree.serializedRepresentation)
        #expect(data.prefix(8) == Data("rtfd".utf8 + [0, 0, 0, 0]))
        let expected = Self.entries(tree)
        #expect(expected.count == 11)

        let python = try Self.pythonReading(of: data)
        #expect(python.top == "directory")
        #expect(python.entries == expected)
        #expect(python.utf8Name == Array("Every Shape.package".utf8))
        #expect(python.nextstepName == Array("Every Shape.package".utf8))

        let read = try #require(FileWrapper(serializedRepresentation: data))
        #expect(read.isDirectory && read.preferredFilename == "Every Shape.package" && read.filename == nil)
        #expect(Self.entries(read) == expected)
        let children = try #require(read.fileWrappers)
        #expect(Set(children.keys.map { Array($0.utf8) }) == Set(tree.fileWrappers!.keys.map { Array($0.utf8) }), "keys byte for byte, NFD included")
        let second = try #require(children["1\(Self.unique)dup.txt"])
        #expect(second.preferredFilename == "dup.txt" && second.filename == "1\(Self.unique)dup.txt")
        #expect(second.regularFileContents == Data("second".utf8))
        #expect(children["dup.txt"]?.preferredFilename == "dup.txt")
        #expect(children["big.bin"]?.regularFileContents.map(SHA256Digest.of) == tree.fileWrappers!["big.bin"]!.regularFileContents.map(SHA256Digest.of))
        #expect(children["undated.txt"]?.attributes.modificationDate == FileTimestamp(seconds: 0), "an undated child reads back at the epoch")
        #expect(children["notes.txt"]?.attributes.modificationDate == FileTimestamp(seconds: Self.time.seconds), "whole seconds")
        #expect(children["Empty"]?.fileWrappers?.isEmpty == true)
        #expect(read.attributes == FileWrapper.Attributes(), "the top directory's attributes are not stored")

        // What ours read, ours writes again to the same bytes.
        #expect(read.serializedRepresentation.map(SHA256Digest.of) == SHA256Digest.of(data))
    }

    @Test(arguments: ["file", "link"])
    func aTopLevelFileOrLinkIsWrappedAsAppleWrapsIt(kind: String) throws {
        let wrapper = kind == "file"
            ? FileWrapper(regularFileWithContents: Data("alone".utf8))
            : FileWrapper(symbolicLinkWithDestination: "../elsewhere/f\u{E9}e")
        wrapper.attributes = .init(permissions: 0o640, modificationDate: Self.time)
        wrapper.preferredFilename = "Caf\u{E9} \u{6771}\u{4EAC}"
        let data = try #require(wrapper.serializedRepresentation)

        let python = try Self.pythonReading(of: data, "\(#function)-\(kind)")
        #expect(python.top == kind)
        wrapper.attributes.modificationDate = nil
        #expect(python.entries == Self.entries(wrapper), "the top-level leaf's time is 0, as Apple writes it")
        #expect(python.utf8Name == Array("Caf\u{E9} \u{6771}\u{4EAC}".utf8))
        #expect(python.nextstepName?.first == UInt8(ascii: "C"), "NeXTSTEP, lossy")

        let read = try #require(FileWrapper(serializedRepresentation: data))
        #expect(read.isRegularFile == (kind == "file") && read.isSymbolicLink == (kind == "link"))
        #expect(read.regularFileContents == (kind == "file" ? Data("alone".utf8) : nil))
        #expect(read.symbolicLinkDestinationBytes == (kind == "link" ? Array("../elsewhere/f\u{E9}e".utf8) : nil))
        #expect(read.attributes.permissions == 0o640)
        #expect(read.attributes.modificationDate == FileTimestamp(seconds: 0))
        #expect(read.preferredFilename == "Caf\u{E9} \u{6771}\u{4EAC}")
    }

    @Test func theSameTreeSerializesToTheSameBytes() throws {
        let data = try #require(Self.everyShape().serializedRepresentation)
        #expect(Self.everyShape().serializedRepresentation.map(SHA256Digest.of) == SHA256Digest.of(data))
        // The same children added in the other order.
        let forward = FileWrapper(directoryWithFileWrappers: [:])
        let backward = FileWrapper(directoryWithFileWrappers: [:])
        let names = (0..<40).map { "file \($0).txt" }
        for name in names { forward.addRegularFile(withContents: Data(name.utf8), preferredFilename: name) }
        for name in names.reversed() { backward.addRegularFile(withContents: Data(name.utf8), preferredFilename: name) }
        #expect(forward.serializedRepresentation.map(SHA256Digest.of) == backward.serializedRepresentation.map(SHA256Digest.of))
    }

    // MARK: - Apple's bytes

    /// The document's annotated sample (`kmjs-kmExample1`): an RTFD of one
    /// RTF file, no preferred name, written by Apple, keys in hash order.
    @Test func theAnnotatedSampleReadsToItsTree() throws {
        let rtf = FlatRTFDBytes.sampleRTF
        let bytes = FlatRTFDBytes.annotatedSample()
        #expect(bytes.count == 0x194 + 8 + 35)

        let read = try #require(FileWrapper(serializedRepresentation: Data(bytes)))
        #expect(read.isDirectory && read.preferredFilename == nil)
        let children = try #require(read.fileWrappers)
        #expect(Array(children.keys) == ["TXT.rtf"])
        let text = try #require(children["TXT.rtf"])
        #expect(text.regularFileContents == Data(rtf))
        #expect(text.attributes.permissions == 0o666)
        #expect(text.attributes.modificationDate == FileTimestamp(seconds: 1_753_498_387))
        #expect(text.filename == "TXT.rtf" && text.preferredFilename == "TXT.rtf")
        // Without its header (the pasteboard's form), the same tree.
        let headerless = try #require(FileWrapper(serializedRepresentation: Data(bytes.dropFirst(8))))
        #expect(headerless.fileWrappers?["TXT.rtf"]?.regularFileContents == Data(rtf))
    }

    @Test func namesAndAttributesAreReadByApplesRules() throws {
        // The NeXTSTEP name alone; a unique prefix anywhere in a key; a child without info.
        let nextstep = try #require(FileWrapper(serializedRepresentation: FlatRTFDBytes.blob([
            ("__@PreferredName@__", FlatRTFDBytes.data([0x43, 0x61, 0x66, 0xD5])),  // "Caf" and a NeXTSTEP letter
            ("x\(Self.unique)y.txt", FlatRTFDBytes.data(Array("y".utf8))),
            ("plain", FlatRTFDBytes.data([])),
            (".", FlatRTFDBytes.info([(Array("x\(Self.unique)y.txt".utf8), [5, 0o600, 0, 0])])),
        ])))
        #expect(nextstep.preferredFilename.map { $0.hasPrefix("Caf") && $0.count == 4 } == true)
        #expect(nextstep.fileWrappers?.count == 2, "the name key is not a child")
        let prefixed = try #require(nextstep.fileWrappers?["x\(Self.unique)y.txt"])
        #expect(prefixed.preferredFilename == "y.txt" && prefixed.attributes.permissions == 0o600)
        #expect(prefixed.attributes.modificationDate == FileTimestamp(seconds: 5))
        #expect(nextstep.fileWrappers?["plain"]?.attributes == FileWrapper.Attributes(), "no info, no attributes")

        // A UTF-8 name that is not UTF-8: no name, and both keys stay, as children.
        let badName = try #require(FileWrapper(serializedRepresentation: FlatRTFDBytes.blob([
            ("__@PreferredName@__", FlatRTFDBytes.data(Array("ok".utf8))),
            ("__@UTF8PreferredName@__", FlatRTFDBytes.data([0xC0, 0x80])),
        ])))
        #expect(badName.preferredFilename == nil)
        #expect(badName.fileWrappers?.count == 2)

        // A time past 2038 as Apple stores it reads back sign-extended; a link by its kind.
        let link = try #require(FileWrapper(serializedRepresentation: FlatRTFDBytes.blob([
            ("l", FlatRTFDBytes.data(Array("../t".utf8))), (".", FlatRTFDBytes.info([(Array("l".utf8), [0xFFFF_FFFF, 0o777, 4, 0])])),
        ])))
        #expect(link.fileWrappers?["l"]?.symbolicLinkDestinationBytes == Array("../t".utf8))
        #expect(link.fileWrappers?["l"]?.attributes.modificationDate == FileTimestamp(seconds: -1))
    }

    /// Apple silicon aligns data to its 16 KiB page: the pad count says
    /// how far, and any pad reads.
    @Test func dataAlignedToAnotherPageReads() throws {
        var random = SplitMix64(seed: 16)
        let contents = random.bytes(20_000)
        // The value's tag at offset 27 (header, tag, count, key "big", length), the marker at 31.
        let pad = 16_384 - 43
        let value = FlatRTFDBytes.u32(1) + FlatRTFDBytes.u32(0x8000_0000) + FlatRTFDBytes.u32(UInt32(contents.count)) + FlatRTFDBytes.u32(UInt32(pad))
            + [UInt8](repeating: 0, count: pad) + contents
        let bytes = Array("rtfd".utf8) + [0, 0, 0, 0] + FlatRTFDBytes.u32(3) + FlatRTFDBytes.u32(1) + FlatRTFDBytes.sized(Array("big".utf8))
            + FlatRTFDBytes.u32(UInt32(value.count)) + value
        #expect(bytes.count - contents.count == 16_384)
        let read = try #require(FileWrapper(serializedRepresentation: Data(bytes)))
        #expect(read.fileWrappers?["big"]?.regularFileContents.map(SHA256Digest.of) == SHA256Digest.of(contents))
    }

    @Test func whatAppleCannotReadIsRefused() throws {
        func reads(_ entries: [(String, [UInt8])]) -> Bool { FileWrapper(serializedRepresentation: FlatRTFDBytes.blob(entries)) != nil }
        let file = FlatRTFDBytes.data(Array("x".utf8))
        #expect(reads([("a", file)]))
        #expect(!reads([("a/b", file)]), "a key that is no file name")
        #expect(!reads([("sub", FlatRTFDBytes.dictionary([(Array("..".utf8), file)]))]), "`..` below the top")
        #expect(!reads([("Caf\u{E9}", file), ("Cafe\u{301}", file)]), "two keys one String")
        #expect(!reads([("a", file), (".", FlatRTFDBytes.info([(Array("a".utf8), [0, 0o644, 1, 0])]))]), "data whose kind is directory")
        #expect(!reads([("a", FlatRTFDBytes.dictionary([])), (".", FlatRTFDBytes.info([(Array("a".utf8), [0, 0o644, 0, 0])]))]), "a dictionary whose kind is file")
        #expect(!reads([("a", file), (".", file)]), "an info that is no info")
        #expect(!reads([("__@UTF8PreferredName@__", FlatRTFDBytes.data(Array("a/b".utf8)))]), "a preferred name that is no file name")
        #expect(FileWrapper(serializedRepresentation: Data()) == nil)
        #expect(FileWrapper(serializedRepresentation: Data("rtfd".utf8 + [0, 0, 0])) == nil)
        var versioned = FlatRTFDBytes.blob([("a", file)])
        versioned[5] = 1
        #expect(FileWrapper(serializedRepresentation: versioned) == nil, "a version other than 0")
    }

    // MARK: - What Apple's writer cannot write

    @Test func whereApplesWriterFailsOursGivesNil() throws {
        func file(_ count: Int) -> FileWrapper { FileWrapper(regularFileWithContents: Data(count: count)) }
        // Apple's limit is 2 GiB - 1 for every size and length (a value's
        // length counts its tag and size too); lowered here.
        #expect(FlatRTFDWriter.data(for: file(992), largestValue: 1000) != nil)
        #expect(FlatRTFDWriter.data(for: file(993), largestValue: 1000) == nil, "a file over the limit")
        #expect(FlatRTFDWriter.data(for: file(1001), largestValue: 1000) == nil, "refused before anything is written")
        let two = FileWrapper(directoryWithFileWrappers: ["sub": FileWrapper(directoryWithFileWrappers: ["a": file(500), "b": file(500)])])
        #expect(FlatRTFDWriter.data(for: two, largestValue: 1000) == nil, "a directory whose contents are over the limit")

        func dated(_ seconds: Int64, nanoseconds: Int32 = 0) -> Data? {
            let child = file(1)
            child.attributes.modificationDate = FileTimestamp(seconds: seconds, nanoseconds: nanoseconds)
            return FileWrapper(directoryWithFileWrappers: ["f": child]).serializedRepresentation
        }
        #expect(dated(Int64(Int32.max)) != nil)
        #expect(dated(Int64(Int32.max) + 1) == nil, "after 2038-01-19 03:14:07")
        #expect(dated(-1) == nil, "before 1970")
        #expect(dated(-1, nanoseconds: 500_000_000) != nil, "-0.5 s is 0 cut toward zero")

        let link = FileWrapper(symbolicLinkWithDestinationBytes: [0x2E, 0x2E, 0x2F, 0xC0])
        #expect(FileWrapper(directoryWithFileWrappers: ["l": link]).serializedRepresentation == nil, "a target that is not UTF-8")
        #expect(FileWrapper(directoryWithFileWrappers: ["..": file(1)]).serializedRepresentation == nil)
        #expect(FileWrapper(directoryWithFileWrappers: ["__@UTF8PreferredName@__": file(1)]).serializedRepresentation == nil)
        #expect(FileWrapper(directoryWithFileWrappers: ["sub": FileWrapper(directoryWithFileWrappers: ["__@UTF8PreferredName@__": file(1)])])
            .serializedRepresentation != nil, "the name keys are reserved at the top only")

    }

    /// Neither direction recurses: a tree 10,000 directories deep, which
    /// the rest of the library reads and writes, serializes and reads back.
    @Test func aDeepTreeRoundTrips() throws {
        var deepest = FileWrapper(regularFileWithContents: Data("bottom".utf8))
        for _ in 0..<10_000 { deepest = FileWrapper(directoryWithFileWrappers: ["d": deepest]) }
        let data = try #require(deepest.serializedRepresentation)
        var read = try #require(FileWrapper(serializedRepresentation: data))
        var depth = 0
        while read.isDirectory, let child = read.fileWrappers?["d"] {
            read = child
            depth += 1
        }
        #expect(depth == 10_000 && read.regularFileContents == Data("bottom".utf8))
    }
}
