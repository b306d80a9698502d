import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// A full disk (a small tmpfs) while packing or unpacking: an error that
/// says so and names the file, the old archive or tree left whole, and
/// nothing else left on the disk.
@Suite(.enabled(if: geteuid() == 0, "mounting a small tmpfs needs root"), .startsProcesses)
struct FullDiskTests {
    /// 1.5 MB of random bytes and a small file: more than a 1 MB tmpfs
    /// holds, compressed or not.
    static func tooBig() -> FileWrapper {
        var generator = SplitMix64(seed: 17)
        return FileWrapper(directoryWithFileWrappers: [
            "big.bin": FileWrapper(regularFileWithContents: Data(generator.bytes(1_500_000))),
            "small.txt": FileWrapper(regularFileWithContents: Data("small".utf8)),
        ])
    }

    @Test(arguments: ["zip", "tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst", "tar.lz4", "cpio", "7z"])
    func packingAnArchiveThatDoesNotFitKeepsTheOldOne(format name: String) throws {
        let directory = try TemporaryDirectory()
        let mount = try Disk.mountTmpfs(size: "1m", named: "small", in: directory)
        defer { Disk.unmount(mount) }
        let archive = mount.appendingPathComponent("Doc.\(name)")
        let options = ArchiveWriteOptions(format: try #require(ArchiveFormat(name: name)))
        try ArchiveWriter.write(FileWrapper(directoryWithFileWrappers: ["old.txt": FileWrapper(regularFileWithContents: Data("old".utf8))]),
                                to: archive, options: options)
        let old = try Data(contentsOf: archive)

        let error = try #require(throws: ArchiveError.self) { try ArchiveWriter.write(Self.tooBig(), to: archive, options: options) }

        #expect(error.code == .io)
        #expect(error.description.hasPrefix("\(archive.path): "), "\(error)")
        #expect(error.description.hasSuffix("(\"\(archive.path)\") failed: No space left on device (ENOSPC)"), "\(error)")
        #expect(error.errno == .noSpace && (error.underlying as? FileWrapperError)?.code == .outOfSpace, "the call's errno is kept, not only its text")
        #expect(try Data(contentsOf: archive) == old)
        #expect(try Disk.names(in: mount) == ["Doc.\(name)"], "the temporary was left behind")
    }

    @Test(arguments: [false, true])
    func unpackingATreeThatDoesNotFitLeavesNothingBehind(replacing: Bool) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("Big.tar")
        try ArchiveWriter.write(Self.tooBig(), to: archive, options: ArchiveWriteOptions(format: .tar))
        let mount = try Disk.mountTmpfs(size: "1m", named: "small", in: directory)
        defer { Disk.unmount(mount) }
        let destination = mount.appendingPathComponent("Unpacked")
        if replacing { try Disk.write("old", to: destination.appendingPathComponent("old.txt")) }
        let before = replacing ? try DiskTree(destination) : nil

        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: archive, to: destination, options: ArchiveUnpackOptions(replacesExisting: replacing))
        }

        #expect(error.code == .io && error.entry == "big.bin")
        #expect(error.description == "\(archive.path): \"big.bin\": write(\"\(destination.path)/big.bin\") failed: No space left on device (ENOSPC)")
        #expect(try Disk.names(in: mount) == (replacing ? ["Unpacked"] : []), "the temporary was left behind")
        if replacing { #expect(try DiskTree(destination) == before) }
    }

    /// Small files are written by worker threads: the one that finds the
    /// disk full fails the unpack with the error the unpacking thread would
    /// give, and the workers end before the temporary is removed.
    @Test func aWorkerThatRunsOutOfSpaceFailsTheUnpack() throws {
        let directory = try TemporaryDirectory()
        var tar = TarBuilder()
        for index in 0..<600 {
            tar.file("notes/note-\(index).txt", contents: [UInt8](repeating: UInt8(index % 256), count: 4096))
        }
        let archive = directory.appending("Notes.tar")
        try tar.archive.write(to: archive)
        let mount = try Disk.mountTmpfs(size: "1m", named: "small", in: directory)
        defer { Disk.unmount(mount) }
        let destination = mount.appendingPathComponent("Unpacked")

        let error = try #require(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: archive, to: destination) }

        let entry = try #require(error.entry)
        #expect(error.code == .io && entry.hasPrefix("notes/note-"))
        #expect(error.description == "\(archive.path): \"\(entry)\": write(\"\(destination.path)/\(entry)\") failed: No space left on device (ENOSPC)")
        #expect(try Disk.names(in: mount) == [], "the temporary was left behind")
    }

    @Test func unpackingMoreEntriesThanTheDiskHoldsLeavesNothingBehind() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("Many.tar")
        var folders: [String: FileWrapper] = [:]
        for index in 0..<40 {
            folders["folder-\(index)"] = FileWrapper(directoryWithFileWrappers: ["note.txt": FileWrapper(regularFileWithContents: Data("\(index)".utf8))])
        }
        try ArchiveWriter.write(FileWrapper(directoryWithFileWrappers: folders), to: archive, options: ArchiveWriteOptions(format: .tar))
        let mount = try Disk.mountTmpfs(size: "1m", inodes: 30, named: "few-inodes", in: directory)
        defer { Disk.unmount(mount) }
        let destination = mount.appendingPathComponent("Unpacked")

        let error = try #require(throws: ArchiveError.self) { try ArchiveUnpacker.unpack(archiveAt: archive, to: destination) }

        #expect(error.code == .io && error.entry != nil)
        #expect(error.description.contains("(\"\(destination.path)/folder-"), "\(error)")
        #expect(error.description.hasSuffix("failed: No space left on device (ENOSPC)"), "\(error)")
        #expect(error.errno == .noSpace && (error.underlying as? FileWrapperError)?.path.hasPrefix(destination.path + "/folder-") == true)
        #expect(try Disk.names(in: mount) == [], "the temporary was left behind")
    }
}
