@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Every format we write gives back the tree: names (non-ASCII included),
/// kinds, bytes, permission bits, symlink targets, empty directories and
/// modification times (nanoseconds in pax).
@Suite(.startsProcesses) struct ArchiveRoundTripTests {
    static let time = FileTimestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789)

    static func sampleTree() -> FileWrapper {
        func file(_ text: String, _ permissions: UInt16 = 0o644) -> FileWrapper {
            let wrapper = FileWrapper(regularFileWithContents: Data(text.utf8))
            wrapper.attributes = .init(permissions: permissions, modificationDate: time)
            return wrapper
        }
        func directory(_ children: [String: FileWrapper]) -> FileWrapper {
            let wrapper = FileWrapper(directoryWithFileWrappers: children)
            wrapper.attributes = .init(permissions: 0o755, modificationDate: time)
            return wrapper
        }
        let binary = FileWrapper(regularFileWithContents: Data([UInt8](count: 300_000) { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }))
        binary.attributes = .init(permissions: 0o600, modificationDate: time)
        let link = FileWrapper(symbolicLinkWithDestination: "../Entries/Caf\u{E9}.md")
        link.attributes.modificationDate = time
        return directory([
            "index.json": file("{\"entries\": 2}"),
            "Entries": directory([
                "Caf\u{E9}.md": file("composed name"),
                "\u{6771}\u{4EAC} \u{2013} notes.md": file("CJK and a dash"),
            ]),
            "Media": directory(["blob.bin": binary, "latest.md": link]),
            "Scripts": directory(["run.sh": file("#!/bin/sh\n", 0o755)]),
            "Drafts": directory([:]),
        ])
    }

    /// Path -> (kind, permissions, contents or target, time) for comparing trees.
    static func summary(_ root: FileWrapper, nanoseconds: Bool) -> [String: String] {
        var result: [String: String] = [:]
        var pending = [("", root)]
        while let (path, wrapper) = pending.popLast() {
            let time = wrapper.attributes.modificationDate.map { nanoseconds ? "\($0.seconds).\($0.nanoseconds)" : "\($0.seconds)" } ?? "-"
            if wrapper.isDirectory {
                if !path.isEmpty { result[path] = "dir \(String(wrapper.attributes.permissions ?? 0, radix: 8)) \(time)" }
                for (name, child) in wrapper.fileWrappers! { pending.append((path.isEmpty ? name : path + "/" + name, child)) }
            } else if wrapper.isSymbolicLink {
                result[path] = "link -> \(wrapper.symbolicLinkDestination!) \(time)"
            } else {
                let digest = wrapper.regularFileContents.map { "\($0.count) bytes \($0.hashValue)" } ?? "unreadable"
                result[path] = "file \(String(wrapper.attributes.permissions ?? 0, radix: 8)) \(digest) \(time)"
            }
        }
        return result
    }

    @Test(arguments: ArchiveFormat.allWritable)
    func theTreeSurvives(format: ArchiveFormat) throws {
        let tree = Self.sampleTree()
        let data = try ArchiveWriter.data(for: tree, options: ArchiveWriteOptions(format: format))
        let read = try ArchiveReader.fileWrapper(from: data, name: "test.\(format.fileExtension)")

        let expected = Self.summary(tree, nanoseconds: format.keepsNanoseconds)
        let actual = Self.summary(read, nanoseconds: format.keepsNanoseconds)
        #expect(actual == expected)
        #expect(read.fileWrappers?["Entries"]?.fileWrappers?.keys.contains("Caf\u{E9}.md") == true)
    }

    /// A symlink's target is bytes, as Linux has it. One that is not UTF-8
    /// came back empty from ustar, GNU tar, cpio and pax, and packing it as
    /// 7z crashed: libarchive was given it as UTF-8 and dropped it.
    @Test(arguments: ArchiveFormat.allWritable)
    func aSymlinkTargetThatIsNotUTF8Survives(format: ArchiveFormat) throws {
        let target: [UInt8] = Array("t".utf8) + [0xFF, 0xFE] + Array(".txt".utf8)
        let link = FileWrapper(symbolicLinkWithDestinationBytes: target)
        link.preferredFilename = "odd"
        let data = try ArchiveWriter.data(for: FileWrapper(directoryWithFileWrappers: ["odd": link]), options: ArchiveWriteOptions(format: format))
        let read = try ArchiveReader.fileWrapper(from: data, name: "test.\(format.fileExtension)")
        #expect(read.fileWrappers?["odd"]?.symbolicLinkDestinationBytes == target)
    }

    /// libarchive tells a failed name or target conversion from a failed
    /// allocation by reading `errno` without setting it first, so a stale
    /// `ENOMEM` left on the thread by earlier work made a zip symlink whose
    /// target is not UTF-8 "Can't allocate memory for Symlink" (seen once in
    /// a full run). The reader clears `errno` before each header; here the
    /// visitor of the entry before the symlink leaves `ENOMEM` behind.
    @Test(arguments: ArchiveFormat.allWritable)
    func aStaleOutOfMemoryErrnoDoesNotFailTheRead(format: ArchiveFormat) throws {
        let target: [UInt8] = Array("t".utf8) + [0xFF, 0xFE] + Array(".txt".utf8)
        let link = FileWrapper(symbolicLinkWithDestinationBytes: target)
        let tree = FileWrapper(directoryWithFileWrappers: ["a.txt": FileWrapper(regularFileWithContents: Data("a".utf8)), "odd": link])
        let data = try ArchiveWriter.data(for: tree, options: ArchiveWriteOptions(format: format))
        var targets: [[UInt8]] = []
        try ArchiveEntries.forEach(in: data, name: "test.\(format.fileExtension)") { entry, _ in
            if let target = entry.symbolicLinkTarget { targets.append(target) }
            errno = ENOMEM
        }
        #expect(targets == [target])
    }

    @Test func theFormatComesFromTheBytesNotTheName() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fwk-archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let misnamed = directory.appendingPathComponent("really-a-tar-zst.zip")

        try ArchiveWriter.write(Self.sampleTree(), to: misnamed, options: ArchiveWriteOptions(format: .tarZstd))

        let zstdMagic = Data([0x28, 0xB5, 0x2F, 0xFD])
        #expect(try Data(contentsOf: misnamed).prefix(4) == zstdMagic)
        let read = try ArchiveReader.fileWrapper(contentsOf: misnamed)
        #expect(Self.summary(read, nanoseconds: true) == Self.summary(Self.sampleTree(), nanoseconds: true))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["really-a-tar-zst.zip"])
    }

    @Test(arguments: ArchiveFormat.allWritable)
    func reproduciblePackingGivesTheSameBytesTwice(format: ArchiveFormat) throws {
        let options = ArchiveWriteOptions(format: format, reproducible: true)
        let first = try ArchiveWriter.data(for: Self.sampleTree(), options: options)
        let second = try ArchiveWriter.data(for: Self.sampleTree(), options: options)
        #expect(first == second)
    }

    @Test func extensionsAndNamesChooseFormats() {
        #expect(ArchiveFormat(fileExtensionOf: "Book.epub.zip") == .zip)
        #expect(ArchiveFormat(fileExtensionOf: "x.TAR.GZ") == .tarGzip)
        #expect(ArchiveFormat(fileExtensionOf: "x.tgz") == .tarGzip)
        #expect(ArchiveFormat(fileExtensionOf: "x.tar.zst") == .tarZstd)
        #expect(ArchiveFormat(fileExtensionOf: "x.7z") == .sevenZip)
        #expect(ArchiveFormat(fileExtensionOf: "x.rar") == nil)
        #expect(ArchiveFormat(name: "ustar.xz") == ArchiveFormat(.ustar, compression: .xz))
        #expect(ArchiveFormat(name: "tar.zst") == .tarZstd)
        #expect(ArchiveFormat(name: "tgz") == .tarGzip)
        #expect(ArchiveFormat(name: "zip.gz") == nil)
        #expect(ArchiveFormat(name: "shar") == nil)
    }

    @Test func aZipContainerCanStartWithAStoredMimetype() throws {
        let book = FileWrapper(directoryWithFileWrappers: [
            "mimetype": FileWrapper(regularFileWithContents: Data("application/epub+zip".utf8)),
            "META-INF": FileWrapper(directoryWithFileWrappers: [
                "container.xml": FileWrapper(regularFileWithContents: Data(String(repeating: "<x/>", count: 200).utf8)),
            ]),
        ])
        let data = try ArchiveWriter.data(for: book, options: ArchiveWriteOptions(format: .zip, firstStoredEntry: "mimetype"))

        // The first local file header: signature, method 0 (stored), no data
        // descriptor, name "mimetype" at offset 30, no extra field, then the
        // bytes themselves at offset 38, where EPUB checkers look for them.
        #expect(data.prefix(4) == Data([0x50, 0x4B, 0x03, 0x04]))
        #expect(data[8] == 0 && data[9] == 0)
        #expect(data[6] & 0x08 == 0)
        #expect(data[26] == 8 && data[27] == 0 && data[28] == 0 && data[29] == 0)
        #expect(String(decoding: data[30..<38], as: UTF8.self) == "mimetype")
        #expect(data[38...].starts(with: Data("application/epub+zip".utf8)))
        let read = try ArchiveReader.fileWrapper(from: data)
        #expect(read.fileWrappers?["META-INF"]?.fileWrappers?["container.xml"]?.regularFileContents?.count == 800)
    }

    /// `serializedRepresentation` wrote this pax tar before it wrote Apple's
    /// format (FileWrapperKitTests' FlatRTFDTests test that one):
    /// `FileWrapper(serializedRepresentation:)` still reads it, without
    /// libarchive, to the nanosecond and with its owners.
    @Test func theTarThatEarlierVersionsSerializedIsStillRead() throws {
        func legacySerialization(of wrapper: FileWrapper, name: String) throws -> Data {
            var data = Data()
            try ArchiveWriter.write(wrapper, rootName: name, options: ArchiveWriteOptions(format: .tar), name: name) {
                data.append(contentsOf: $0)
            }
            return data
        }
        let tree = Self.sampleTree()
        let data = try legacySerialization(of: tree, name: "Sample.package")
        let copy = try #require(FileWrapper(serializedRepresentation: data))
        #expect(copy.preferredFilename == "Sample.package")
        #expect(Self.summary(copy, nanoseconds: true) == Self.summary(tree, nanoseconds: true))
        #expect(copy.attributes.permissions == 0o755)
        #expect(copy.fileWrappers?["Entries"]?.attributes.owner != nil)
        #expect(FileWrapper(serializedRepresentation: data.prefix(data.count - 1024 - 512)) == nil, "a tar cut short")

        let single = FileWrapper(regularFileWithContents: Data("just me".utf8))
        single.attributes.modificationDate = FileTimestamp(seconds: 1_700_000_000, nanoseconds: 5)
        let singleCopy = try #require(FileWrapper(serializedRepresentation: try legacySerialization(of: single, name: "note.txt")))
        #expect(singleCopy.isRegularFile && singleCopy.regularFileContents == Data("just me".utf8))
        #expect(singleCopy.preferredFilename == "note.txt")
        #expect(singleCopy.attributes.modificationDate == FileTimestamp(seconds: 1_700_000_000, nanoseconds: 5))
    }

    /// The first versions wrote that tar through libarchive's pax writer,
    /// which bsdtar uses: its records (`atime`, `ctime`, `PaxHeader/` names)
    /// are read past, as GNU tar's pax are.
    @Test(arguments: [["/usr/bin/bsdtar", "--format", "pax"], ["/usr/bin/tar", "--format=pax"]])
    func aPaxTarOfLibarchiveOrGNUTarReads(tool: [String]) throws {
        let directory = try TemporaryDirectory("\(#function)-\(tool[0].split(separator: "/").last!)")
        let package = directory.appending("Doc.package")
        try Disk.write("inner", to: package.appendingPathComponent("sub/inner.txt"))
        try Disk.write("composed", to: package.appendingPathComponent("caf\u{E9}.txt"), mode: 0o600)
        try FileManager.default.createSymbolicLink(atPath: package.appendingPathComponent("link").path, withDestinationPath: "sub/inner.txt")
        Disk.setModificationTime(package.appendingPathComponent("sub/inner.txt"), seconds: 1_700_000_000, nanoseconds: 123_456_789)
        let tar = directory.appending("Doc.tar")
        let run = try Disk.run("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", directory.url.path] + tool + ["-cf", tar.path, "Doc.package"])
        #expect(run.status == 0, "\(run.stderr)")

        let read = try #require(FileWrapper(serializedRepresentation: try Data(contentsOf: tar)))
        #expect(read.preferredFilename == "Doc.package")
        let inner = try #require(read.fileWrappers?["sub"]?.fileWrappers?["inner.txt"])
        #expect(inner.regularFileContents == Data("inner".utf8))
        #expect(inner.attributes.modificationDate == FileTimestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789))
        #expect(read.fileWrappers?["caf\u{E9}.txt"]?.attributes.permissions == 0o600)
        #expect(read.fileWrappers?["link"]?.symbolicLinkDestinationBytes == Array("sub/inner.txt".utf8))
    }

    /// Text that compresses, but differently at each level.
    static func compressibleTree() -> FileWrapper {
        var text = ""
        var seed: UInt64 = 42
        for _ in 0..<40_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            text += ["alpha ", "beta ", "gamma ", "delta ", "\n", "epsilon ", "zeta "][Int(seed >> 61) % 7]
            text += String(seed >> 54, radix: 36)
        }
        return FileWrapper(directoryWithFileWrappers: ["text.txt": FileWrapper(regularFileWithContents: Data(text.utf8))])
    }

    @Test(arguments: [(ArchiveFormat.tarGzip, 1, 9), (.tarBzip2, 1, 9), (.tarXz, 0, 9), (.tarZstd, 1, 19), (.tarLz4, 1, 9), (.zip, 1, 9), (.sevenZip, 1, 9)])
    func theCompressionLevelIsApplied(format: ArchiveFormat, low: Int, high: Int) throws {
        let tree = Self.compressibleTree()
        let fast = try ArchiveWriter.data(for: tree, options: ArchiveWriteOptions(format: format, compressionLevel: low))
        let small = try ArchiveWriter.data(for: tree, options: ArchiveWriteOptions(format: format, compressionLevel: high))

        #expect(small.count < fast.count, "level \(high) gives \(small.count) bytes, level \(low) \(fast.count)")
        for data in [fast, small] {
            let read = try ArchiveReader.fileWrapper(from: data)
            #expect(read.fileWrappers?["text.txt"]?.regularFileContents == tree.fileWrappers?["text.txt"]?.regularFileContents)
        }
    }

    @Test func aLevelOutOfRangeIsAnError() throws {
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveWriter.data(for: Self.compressibleTree(), options: ArchiveWriteOptions(format: .tarGzip, compressionLevel: 99))
        }
        #expect(error.code == .libarchive)
    }
}
