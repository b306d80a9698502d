import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Issue 33: 7z entries whose Unix mode holds permissions but no file-type
/// bits (a Qt installer package's) were refused as device nodes; 7-Zip,
/// bsdtar and py7zr extract regular files. The archive is 7-Zip's own
/// (p7zip, header uncompressed), its attributes then cleared of the type
/// bits and its header CRCs made right again.
@Suite(.startsProcesses) struct SevenZipModeTests {
    /// `ARCHIVE OUT`: ARCHIVE with every Unix mode in its header's
    /// attributes (`0x8000 | mode << 16 | windows bits`) left with only
    /// its permission bits; prints how many were changed.
    static let clearTypeBits = """
        import struct, sys, zlib
        data = bytearray(open(sys.argv[1], "rb").read())
        offset, size = struct.unpack_from("<QQ", data, 12)
        start = 32 + offset
        header = bytes(data[start:start + size])
        changed = 0
        for mode in (0o100644, 0o40755):
            for windows in (0x20, 0x10, 0x0):
                old = struct.pack("<I", 0x8000 | windows | mode << 16)
                changed += header.count(old)
                header = header.replace(old, struct.pack("<I", 0x8000 | windows | (mode & 0o7777) << 16))
        data[start:start + size] = header
        struct.pack_into("<I", data, 28, zlib.crc32(header))
        struct.pack_into("<I", data, 8, zlib.crc32(bytes(data[12:32])))
        open(sys.argv[2], "wb").write(bytes(data))
        print(changed)
        """

    @Test func entriesWithoutATypeAreRegularFiles() throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("dir"), withIntermediateDirectories: true)
        try Disk.write("hello\n", to: source.appendingPathComponent("dir/file.txt"))
        try Disk.write("top\n", to: source.appendingPathComponent("top.txt"))
        try Interop.run("7z", ["a", "-mhc=off", "-bd", "-bso0", "../typed.7z", "dir", "top.txt"], in: source)
        let cleared = try Interop.run("python3", ["-c", Self.clearTypeBits, "typed.7z", "untyped.7z"], in: directory.url)
        #expect(cleared.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "3", "the directory and both files")
        let archive = directory.appending("untyped.7z")

        let out = directory.appending("out")
        try ArchiveUnpacker.unpack(archiveAt: archive, to: out)
        let tree = try DiskTree(out)
        #expect(tree.entries["dir/file.txt"]?.contents == Data("hello\n".utf8))
        #expect(tree.entries["top.txt"]?.contents == Data("top\n".utf8))
        #expect(tree.entries["top.txt"]?.mode == 0o644)

        let manifest = try Manifest(archiveAt: archive)
        #expect(manifest.entry(at: Array("top.txt".utf8))?.kind == .file)
        #expect(manifest.entry(at: Array("dir".utf8))?.kind == .directory)
        let wrapper = try ArchiveReader.fileWrapper(contentsOf: archive)
        #expect(wrapper.fileWrappers?["dir"]?.fileWrappers?["file.txt"]?.regularFileContents == Data("hello\n".utf8))
    }
}
