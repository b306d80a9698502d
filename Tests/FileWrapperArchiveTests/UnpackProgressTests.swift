import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Issue 23, item 6: an unpack's progress knows its total where the
/// archive says it before the entries come: a zip's central directory
/// (entries and expanded sizes, as Python's zipfile counts them), read at
/// the first entry whatever the members' sizes. A tar says nothing ahead.
@Suite(.startsProcesses) struct UnpackProgressTests {
    /// A tree written by Info-ZIP zip with `names` in that order: `big.bin`
    /// (300 KiB, above the size whose members go to the workers),
    /// `small.txt` and a directory `dir/`.
    static func zip(_ names: [String], in directory: TemporaryDirectory) throws -> URL {
        var random = SplitMix64(seed: 23)
        try Disk.write(Data(random.bytes(300 << 10)), to: directory.appending("src/big.bin"))
        try Disk.write("small\n", to: directory.appending("src/small.txt"))
        try Disk.write("inside\n", to: directory.appending("src/dir/inner.txt"))
        let archive = directory.appending("x.zip")
        let zipped = try ChildProcess.run("/usr/bin/env", ["zip", "-q", archive.path] + names, in: directory.appending("src"))
        try #require(zipped.status == 0, "\(zipped.stderr)")
        return archive
    }

    /// The entries and expanded bytes Python's zipfile reads in the central directory.
    static func zipfileTotal(_ archive: URL) throws -> (entries: Int, bytes: Int64) {
        let script = "import sys, zipfile\ni = zipfile.ZipFile(sys.argv[1]).infolist()\nprint(len(i), sum(e.file_size for e in i))"
        let result = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, archive.path])
        try #require(result.status == 0, "\(result.stderr)")
        let fields = result.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return (try #require(Int(fields[0])), try #require(Int64(fields[1])))
    }

    @Test(arguments: [["big.bin", "small.txt", "dir/", "dir/inner.txt"], ["big.bin"]])
    func aZipsTotalComesFromItsCentralDirectory(names: [String]) throws {
        let directory = try TemporaryDirectory()
        let archive = try Self.zip(names, in: directory)
        let expected = try Self.zipfileTotal(archive)
        let progress = ManifestProgress()
        _ = try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("Out"), options: ArchiveUnpackOptions(), progress: progress)
        let total = try #require(progress.total, "the central directory gives the total")
        #expect(total.entries == expected.entries && total.bytes == expected.bytes)
        #expect(progress.entries == total.entries && progress.bytes == total.bytes, "the work comes to its total")
    }

    @Test func aTarHasNoTotal() throws {
        let directory = try TemporaryDirectory()
        try Disk.write("small\n", to: directory.appending("src/small.txt"))
        let archive = directory.appending("x.tar")
        try ArchiveWriter.write(contentsOf: directory.appending("src"), to: archive, options: ArchiveWriteOptions(format: .tar))
        let progress = ManifestProgress()
        _ = try ArchiveUnpacker.unpack(archiveAt: archive, to: directory.appending("Out"), options: ArchiveUnpackOptions(), progress: progress)
        #expect(progress.total == nil)
        #expect(progress.bytes == 6)
    }
}
