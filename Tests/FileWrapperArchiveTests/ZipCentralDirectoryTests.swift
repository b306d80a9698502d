@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Every reader beside libarchive walks a zip's central directory by one
/// rule, libarchive's (``ZipCentralDirectory``), so that the lazy container
/// shows what an unpack unpacks. The zips are Python's zipfile's, patched
/// where a test says; Python's reader is asked too.
@Suite(.startsProcesses) struct ZipCentralDirectoryTests {
    /// `OUT KIND`: a zip of a.txt, b.txt and c.txt, then for `fewer` the
    /// end record's counts made 2, for `junk` 8 bytes put between the
    /// directory and the end record (counted in the directory's size).
    /// Prints the names Python's zipfile reads, or its error.
    static let script = """
        import io, struct, sys, zipfile
        out, kind = sys.argv[1], sys.argv[2]
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for name in ["a.txt", "b.txt", "c.txt"]:
                z.writestr(zipfile.ZipInfo(name, (2020, 1, 2, 3, 4, 6)), (name + " holds this\\n") * 20)
        data = bytearray(buffer.getvalue())
        end = data.rindex(b"PK\\x05\\x06")
        if kind == "fewer":
            struct.pack_into("<HH", data, end + 8, 2, 2)
        elif kind == "junk":
            size = struct.unpack_from("<I", data, end + 12)[0]
            struct.pack_into("<I", data, end + 12, size + 8)
            data[end:end] = b"junkjunk"
        open(out, "wb").write(data)
        try:
            print(" ".join(zipfile.ZipFile(out).namelist()))
        except zipfile.BadZipFile as error:
            print("BadZipFile:", error)
        """

    static func zip(_ kind: String, in directory: TemporaryDirectory) throws -> (url: URL, python: String) {
        let url = directory.appending("\(kind).zip")
        let output = try Interop.run("python3", ["-c", script, url.path, kind], in: directory.url)
        return (url, output.stdout.trimmingCharacters(in: .newlines))
    }

    /// The names of a tree's files, sorted by their bytes.
    static func names(_ root: FileWrapper) -> [[UInt8]] {
        (root.fileWrappers ?? [:]).keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// A directory holding a record more than its end record counts: every
    /// reader lists the three, as libarchive and Python's zipfile do (the
    /// lazy container read only the two counted before).
    @Test func recordsPastTheEndRecordsCountAreRead() throws {
        let directory = try TemporaryDirectory()
        let (url, python) = try Self.zip("fewer", in: directory)
        #expect(python == "a.txt b.txt c.txt")
        let expected = ["a.txt", "b.txt", "c.txt"].map { Array($0.utf8) }
        let lazy = try ZipContainer.fileWrapper(contentsOf: url)
        #expect(Self.names(lazy) == expected)
        #expect(Self.names(try ArchiveReader.fileWrapper(contentsOf: url)) == expected)
        #expect(lazy.fileWrappers?["c.txt"]?.regularFileContents == Data(String(repeating: "c.txt holds this\n", count: 20).utf8))
        let source = ArchiveReadSource(data: try Data(contentsOf: url), name: "fewer.zip")
        #expect(ZipDirectory(source: source, maxEntries: 10, maxSize: 1 << 20)?.entryCount == 3)
        #expect(ZipDirectory(source: source, maxEntries: 2, maxSize: 1 << 20) == nil)
    }

    /// Bytes between the last record and the end record: Python's zipfile
    /// and libarchive refuse the zip, and so does the lazy container,
    /// naming where the records stop.
    @Test func bytesBeforeTheEndRecordAreRefused() throws {
        let directory = try TemporaryDirectory()
        let (url, python) = try Self.zip("junk", in: directory)
        #expect(python.hasPrefix("BadZipFile:"), "\(python)")
        let error = try #require(throws: ArchiveError.self) { try ZipContainer.fileWrapper(contentsOf: url) }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("central directory record 4 (of 3 the end record gives): there is no whole central directory record at byte"),
                "\(error.message)")
        #expect(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(contentsOf: url) }
    }
}
