import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Packing a tree straight from disk (`ArchiveWriter.write(contentsOf:)`),
/// which walks it on a second thread and reads small files ahead: the same
/// archive as packing its `FileWrapper`, the same refusals, nothing left
/// open or half-written after one.
@Suite struct DiskPackTests {
    /// Nested folders, an empty folder and file, symlinks, files on both
    /// sides of the read-ahead limit (256 KiB), and twelve files above it,
    /// more than the walk keeps open ahead.
    static func makeTree(at root: URL) throws {
        try Disk.write("mimetype-ish", to: root.appendingPathComponent("mimetype"))
        try Disk.write(Data(), to: root.appendingPathComponent("empty.txt"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty folder"), withIntermediateDirectories: true)
        for index in 0..<12 {
            let size = (256 << 10) + [-1, 0, 1, 4096][index % 4] + index * 9973
            let bytes = Data([UInt8](count: size) { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            try Disk.write(bytes, to: root.appendingPathComponent("large/part \(index).bin"), mode: index.isMultiple(of: 3) ? 0o755 : 0o644)
        }
        for index in 0..<300 {
            try Disk.write("note \(index)\n", to: root.appendingPathComponent("notes/\(index % 7)/n\(index).txt"))
        }
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("notes/latest").path, withDestinationPath: "3/n3.txt")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("broken").path, withDestinationPath: "nowhere")
        Disk.setModificationTime(root.appendingPathComponent("notes/0"), seconds: 1_700_000_000, nanoseconds: 5)
    }

    static func options(_ format: ArchiveFormat) -> ArchiveWriteOptions {
        ArchiveWriteOptions(format: format, reproducible: true, firstStoredEntry: format.container == .zip ? "mimetype" : nil)
    }

    @Test(arguments: [ArchiveFormat.tar, .tarZstd, .zip, .cpio])
    func givesTheSameArchiveAsPackingTheFileWrapper(format: ArchiveFormat) throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("bundle")
        try Self.makeTree(at: root)
        let fromDisk = directory.appending("disk.archive")
        let fromWrapper = directory.appending("wrapper.archive")

        try ArchiveWriter.write(contentsOf: root, to: fromDisk, options: Self.options(format))
        try ArchiveWriter.write(FileWrapper(url: root), to: fromWrapper, options: Self.options(format))

        #expect(try Data(contentsOf: fromDisk) == Data(contentsOf: fromWrapper))
        let unpacked = directory.appending("unpacked")
        try ArchiveUnpacker.unpack(archiveAt: fromDisk, to: unpacked)
        #expect(try DiskTree(unpacked, directoryTimes: false).ignoringTimes == DiskTree(root, directoryTimes: false).ignoringTimes)
    }

    @Test func packsATreeDeeperThanTheDescriptorsItKeepsOpen() throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("deep")
        let names = (0..<70).map { "level\($0)" }
        let leaf = names.reduce(root) { $0.appendingPathComponent($1) }
        try Disk.write("bottom", to: leaf.appendingPathComponent("file.txt"))
        try Disk.write("top", to: root.appendingPathComponent("z.txt"))
        let archive = directory.appending("deep.tar")

        try ArchiveWriter.write(contentsOf: root, to: archive, options: ArchiveWriteOptions(format: .tar))

        let tree = try ArchiveReader.fileWrapper(contentsOf: archive)
        let bottom = names.reduce(tree) { $0?.fileWrappers?[$1] }?.fileWrappers?["file.txt"]
        #expect(bottom?.regularFileContents == Data("bottom".utf8))
        #expect(tree.fileWrappers?["z.txt"]?.regularFileContents == Data("top".utf8))
    }

    @Test func aFileOrSymlinkSourceIsTheOneEntry() throws {
        let directory = try TemporaryDirectory()
        try Disk.write("alone", to: directory.appending("note.txt"))
        try FileManager.default.createSymbolicLink(atPath: directory.appending("link").path, withDestinationPath: "note.txt")

        try ArchiveWriter.write(contentsOf: directory.appending("note.txt"), to: directory.appending("file.tar"), options: ArchiveWriteOptions(format: .tar))
        try ArchiveWriter.write(contentsOf: directory.appending("link"), to: directory.appending("link.tar"), options: ArchiveWriteOptions(format: .tar))

        let file = try ArchiveReader.fileWrapper(contentsOf: directory.appending("file.tar"))
        #expect(file.fileWrappers?.keys.sorted() == ["note.txt"])
        #expect(file.fileWrappers?["note.txt"]?.regularFileContents == Data("alone".utf8))
        let link = try ArchiveReader.fileWrapper(contentsOf: directory.appending("link.tar"))
        #expect(link.fileWrappers?["link"]?.symbolicLinkDestinationURL?.relativePath == "note.txt")
    }

    /// What the walk refuses, the old archive survives, and no descriptor
    /// stays open: the walking thread let go of what it had read ahead.
    @Test(arguments: ["fifo", "notUTF8"])
    func aRefusalNamesTheEntryAndKeepsTheOldArchive(problem: String) throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("bundle")
        try Self.makeTree(at: root)
        let archive = directory.appending("doc.tar")
        try Disk.write("old archive", to: archive)
        switch problem {
        case "fifo":
            try #require(mkfifo(root.appendingPathComponent("notes/6/zz-pipe").path, 0o600) == 0)
        default:
            let raw = Array(root.appendingPathComponent("notes/6").path.utf8) + Array("/bad".utf8) + [0xFF, 0]
            let fd = raw.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
            try #require(fd >= 0)
            close(fd)
        }

        let error = try #require(throws: FileWrapperError.self) {
            try ArchiveWriter.write(contentsOf: root, to: archive, options: ArchiveWriteOptions(format: .tar))
        }

        #expect(error.code == (problem == "fifo" ? .unsupportedFileType : .invalidName))
        #expect(error.path.hasPrefix(root.appendingPathComponent("notes/6").path + "/"))
        #expect(try String(contentsOf: archive, encoding: .utf8) == "old archive")
        #expect(try Disk.names(in: directory.url) == ["bundle", "doc.tar"])
        #expect(try Self.openDescriptors(under: directory.url).isEmpty)
    }

    /// What this process has open below `directory`: other tests run
    /// meanwhile, so descriptors are told by where they lead, not counted.
    static func openDescriptors(under directory: URL) throws -> [String] {
        let prefix = directory.resolvingSymlinksInPath().path + "/"
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { fd in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)
            return target.flatMap { $0.hasPrefix(prefix) ? $0 : nil }
        }
    }
}
