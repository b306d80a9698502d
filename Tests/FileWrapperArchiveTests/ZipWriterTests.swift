import Foundation
import Testing
import TestSupport
@testable import FileWrapperArchive
import FileWrapperKit

/// Our zip writer: files of several chunks deflated on every core into one
/// stream, what does not compress stored, zip64 where sizes, offsets or
/// the entry count need it, the same bytes whatever the scheduling, and
/// failures that name the entry.
@Suite(.startsProcesses) struct ZipWriterTests {
    static let chunk = ZipWriter.chunkSize

    /// Text that deflates well but not trivially: numbered lines of words.
    static func text(_ count: Int, seed: UInt64 = 7) -> Data {
        var state = seed
        var text = ""
        var line = 0
        while text.utf8.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            line += 1
            text += "\(line) " + ["alpha", "beta", "gamma", "delta", "epsilon"][Int(state >> 61) % 5] + " \(state >> 50)\n"
        }
        return Data(text.utf8.prefix(count))
    }

    /// Bytes that do not compress, seeded by their count unless a seed is given.
    static func random(_ count: Int, seed: UInt64? = nil) -> Data {
        var generator = SplitMix64(seed: seed ?? UInt64(count))
        return Data(generator.bytes(count))
    }

    /// A regular file's header as the walk gives it.
    static func fileHeader(_ path: String, size: Int) -> ArchiveEntryHeader {
        ArchiveEntryHeader(
            path: path, kind: .regularFile, permissions: 0o644, size: size,
            modified: FileTimestamp(seconds: 1_700_000_000), owner: nil, linkTarget: nil)
    }

    static func tree(_ files: [String: Data]) -> FileWrapper {
        FileWrapper(directoryWithFileWrappers: files.mapValues { FileWrapper(regularFileWithContents: $0) })
    }

    // MARK: - Chunks, store and deflate

    /// Files of several chunks, text and random bytes mixed within one
    /// file, read back by libarchive, Info-ZIP unzip and Python's zipfile.
    @Test func filesOfSeveralChunksReadBackEverywhere() throws {
        let files = [
            // Starts as text, so it is deflated, chunks of random bytes and all.
            "mixed.bin": Self.text(150_000) + Self.random(2 * Self.chunk) + Self.text(300_000, seed: 9) + Self.random(10_000),
            "text.txt": Self.text(8 * Self.chunk + 17),
            "random.bin": Self.random(3 * Self.chunk + 5),
            "exactly-one-chunk.txt": Self.text(Self.chunk),
            "one-chunk-and-a-byte.txt": Self.text(Self.chunk + 1),
            "small.txt": Self.text(3000),
        ]
        let directory = try TemporaryDirectory()
        let archive = directory.appending("Mixed.zip")
        try ArchiveWriter.write(Self.tree(files), to: archive, options: ArchiveWriteOptions(format: .zip))

        let zip = try ZipHeaders([UInt8](Data(contentsOf: archive)))
        let records = Dictionary(uniqueKeysWithValues: zip.central.map { ($0.name, $0) })
        for (name, method, descriptor) in [
            ("mixed.bin", 8, true), ("text.txt", 8, true), ("random.bin", 0, true),
            ("exactly-one-chunk.txt", 8, false), ("one-chunk-and-a-byte.txt", 8, true), ("small.txt", 8, false),
        ] {
            let record = try #require(records[name])
            #expect(record.method == method, "\(name)")
            #expect(record.hasDescriptor == descriptor, "\(name)")
            #expect(record.size == UInt64(files[name]!.count), "\(name)")
        }
        #expect(records["text.txt"]!.compressedSize < UInt64(files["text.txt"]!.count / 2))

        // libarchive, from the file and from a pipe (its streaming reader, which finds each entry's end from its data).
        let read = try ArchiveReader.fileWrapper(contentsOf: archive)
        for (name, contents) in files { #expect(read.fileWrappers?[name]?.regularFileContents == contents, "\(name)") }
        let streamed = try Interop.run("sh", ["-c", "cat Mixed.zip | bsdtar -tvf -"], in: directory.url)
        #expect(streamed.stdout.split(separator: "\n").count == files.count)

        try Interop.run("unzip", ["-tq", "Mixed.zip"], in: directory.url)
        let source = directory.appending("Source")
        for (name, contents) in files { try Disk.write(contents, to: source.appendingPathComponent(name)) }
        let python = try Interop.run("python3", ["-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            for info in z.infolist():
                if z.read(info) != open(sys.argv[2] + "/" + info.filename, "rb").read(): print("differs:", info.filename)
            print(len(z.infolist()))
            """, archive.path, source.path], in: directory.url)
        #expect(python.stdout == "\(files.count)\n")
    }

    /// Deflated only where that makes the entry smaller: a small file by
    /// trying, a large one by a sample; `.store` and level 0 store all.
    @Test func entriesThatDoNotCompressAreStored() throws {
        let files = [
            "small.bin": Self.random(5000),
            "one-byte.txt": Data("x".utf8),
            "small.txt": Self.text(5000),
            "large.bin": Self.random(5 * Self.chunk),
            "large.txt": Self.text(5 * Self.chunk),
        ]
        func methods(_ options: ArchiveWriteOptions) throws -> [String: Int] {
            let data = try ArchiveWriter.data(for: Self.tree(files), options: options)
            let read = try ArchiveReader.fileWrapper(from: data)
            for (name, contents) in files { #expect(read.fileWrappers?[name]?.regularFileContents == contents, "\(name)") }
            return Dictionary(uniqueKeysWithValues: try ZipHeaders([UInt8](data)).central.map { ($0.name, $0.method) })
        }
        #expect(try methods(ArchiveWriteOptions(format: .zip))
            == ["small.bin": 0, "one-byte.txt": 0, "small.txt": 8, "large.bin": 0, "large.txt": 8])
        let stored = files.mapValues { _ in 0 }
        #expect(try methods(ArchiveWriteOptions(format: .zip, zipMethod: .store)) == stored)
        #expect(try methods(ArchiveWriteOptions(format: .zip, compressionLevel: 0)) == stored)
    }

    @Test func aZipLevelOutOfRangeIsAnError() throws {
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveWriter.data(for: Self.tree(["a": Data("a".utf8)]), options: ArchiveWriteOptions(format: .zip, compressionLevel: 10))
        }
        #expect(error.message.contains("0 to 9"))
    }

    // MARK: - Reproducible bytes

    /// The same entries give the same bytes with one worker or several, and
    /// whether the contents come in one block or in many small ones: jobs
    /// are cut by the entries' sizes, never by timing.
    @Test func bytesDoNotDependOnWorkersOrBlocks() throws {
        let files: [(String, Data)] = [
            ("a/large.txt", Self.text(6 * Self.chunk + 99)),
            ("a/large.bin", Self.random(3 * Self.chunk)),
            ("b/mixed.bin", Self.text(70_000) + Self.random(200_000) + Self.text(100_000)),
        ] + (0..<300).map { ("c/\($0).txt", $0 % 3 == 0 ? Self.random($0 * 37) : Self.text($0 * 53, seed: UInt64($0))) }
        func zip(workers: Int, block: Int) throws -> [UInt8] {
            var output: [UInt8] = []
            let writer = try ZipWriter(options: ArchiveWriteOptions(format: .zip), name: "test.zip", workers: workers) { output += $0 }
            for (path, contents) in files {
                try writer.writeHeader(Self.fileHeader(path, size: contents.count), stored: false)
                try contents.withUnsafeBytes { bytes in
                    for start in stride(from: 0, to: bytes.count, by: block) {
                        try writer.writeData(UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + block, bytes.count)]), entry: path)
                    }
                }
            }
            try writer.close()
            return output
        }
        let reference = try zip(workers: 1, block: 1 << 20)
        #expect(try zip(workers: 2, block: 1 << 20) == reference)
        #expect(try zip(workers: 5, block: 7919) == reference)
        #expect(try zip(workers: 2, block: 1 << 20) == reference)
        let read = try ArchiveReader.fileWrapper(from: Data(reference))
        for (path, contents) in files {
            let parts = path.split(separator: "/").map(String.init)
            #expect(read.fileWrappers?[parts[0]]?.fileWrappers?[parts[1]]?.regularFileContents == contents, "\(path)")
        }
    }

    @Test func reproducibleArchivesAreTheSameBytesRunAfterRun() throws {
        let tree = Self.tree(["large.txt": Self.text(4 * Self.chunk), "large.bin": Self.random(2 * Self.chunk), "small.txt": Self.text(100)])
        let options = ArchiveWriteOptions(format: .zip, reproducible: true)
        let first = try ArchiveWriter.data(for: tree, options: options)
        for _ in 0..<3 { #expect(try ArchiveWriter.data(for: tree, options: options) == first) }
    }

    // MARK: - zip64

    /// Where the zip64 tests' writers turn to zip64: the format's limits at
    /// full size; 4 MiB and 1,024 entries in a reduced run (``TestSizes``),
    /// which writes the same records on a thousandth of the data.
    static let zip64 = TestSizes.pick(full: Zip64Thresholds.format, reduced: Zip64Thresholds(bytes: 4 << 20, entries: 1024))

    /// More entries than the classic end record counts: a zip64 end record
    /// and locator, read by unzip and Python.
    @Test func moreThan65535EntriesGetAZip64EndRecord() throws {
        // side × side files in side folders: 65,792 entries at full size.
        let side = TestSizes.pick(full: 256, reduced: 32)
        var folders: [String: FileWrapper] = [:]
        for folder in 0..<side {
            var files: [String: FileWrapper] = [:]
            for file in 0..<side { files["\(file)"] = FileWrapper(regularFileWithContents: file % 16 == 0 ? Data("\(folder)/\(file)".utf8) : Data()) }
            folders["\(folder)"] = FileWrapper(directoryWithFileWrappers: files)
        }
        let count = side + side * side
        try #require(count > Self.zip64.entries)
        let directory = try TemporaryDirectory()
        let archive = directory.appending("Many.zip")
        try Zip64Thresholds.$current.withValue(Self.zip64) {
            try ArchiveWriter.write(FileWrapper(directoryWithFileWrappers: folders), to: archive, options: ArchiveWriteOptions(format: .zip))
        }

        let zip = try ZipHeaders([UInt8](Data(contentsOf: archive)))
        #expect(zip.classicCount == 0xFFFF)
        #expect(zip.zip64Count == UInt64(count))
        #expect(zip.central.count == count)
        try Interop.run("unzip", ["-tq", "Many.zip"], in: directory.url)
        let python = try Interop.run("python3", ["-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            print(len(z.infolist()), z.read(sys.argv[2]).decode())
            """, archive.path, "\(side - 1)/\(side - 16)"], in: directory.url)
        #expect(python.stdout == "\(count) \(side - 1)/\(side - 16)\n")
    }

    /// A file of more than 4 GiB (zeros, deflated at level 1 to 19 MB; 4 MiB
    /// past a lowered threshold in a reduced run): zip64 sizes in the local
    /// header, the descriptor and the central directory. unzip lists it;
    /// Python reads it whole and checks its CRC (unzip -t would take three
    /// times as long). The zeros come from memory: a sparse file of this
    /// size costs 5 s of kernel time to read the first time and leaves
    /// 4 GiB in the page cache.
    @Test func aFileOver4GiBGetsZip64Sizes() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("Large.zip")
        let size = Int(Self.zip64.bytes) + 1 + 3 * Self.chunk + 12345
        try Data().write(to: archive)
        let output = try FileHandle(forWritingTo: archive)
        let writer = try Zip64Thresholds.$current.withValue(Self.zip64) {
            try ZipWriter(options: ArchiveWriteOptions(format: .zip, compressionLevel: 1), name: "Large.zip") { output.write(Data($0)) }
        }
        try writer.writeHeader(Self.fileHeader("zeros", size: size), stored: false)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        try zeros.withUnsafeBytes { block in
            for start in stride(from: 0, to: size, by: block.count) {
                try writer.writeData(UnsafeRawBufferPointer(rebasing: block[..<min(block.count, size - start)]), entry: "zeros")
            }
        }
        try writer.writeHeader(Self.fileHeader("zz-after.txt", size: 5), stored: false)
        try Data("after".utf8).withUnsafeBytes { try writer.writeData($0, entry: "zz-after.txt") }
        try writer.close()
        try output.close()

        let bytes = [UInt8](try Data(contentsOf: archive))
        let zip = try ZipHeaders(bytes)
        let entry = try #require(zip.central.first { $0.name == "zeros" })
        #expect(entry.size == UInt64(size) && entry.method == 8 && entry.hasDescriptor && entry.hasZip64Field)
        #expect(entry.compressedSize < 30_000_000)
        // The local header: sizes 0xFFFFFFFF, then a zip64 field; the descriptor after the data has 8-byte sizes.
        #expect(Array(bytes[18..<26]) == [UInt8](repeating: 0xFF, count: 8))
        let nameLength = Int(bytes[26]) | Int(bytes[27]) << 8
        #expect(Array(bytes[30 + nameLength..<30 + nameLength + 4]) == [0x01, 0x00, 0x10, 0x00])
        let after = try #require(zip.central.first { $0.name == "zz-after.txt" })
        let descriptor = Int(after.localOffset) - 24
        #expect(Array(bytes[descriptor..<descriptor + 4]) == [0x50, 0x4B, 0x07, 0x08])
        #expect(bytes[descriptor + 16..<descriptor + 24].reversed().reduce(0) { $0 << 8 | UInt64($1) } == UInt64(size))

        let unzip = try Interop.run("unzip", ["-l", "Large.zip"], in: directory.url)
        #expect(unzip.stdout.contains("\(size)  "), "\(unzip.stdout)")
        let python = try Interop.run("python3", ["-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            count = 0
            with z.open("zeros") as zeros:
                while block := zeros.read(1 << 24):
                    count += len(block) if block.count(0) == len(block) else -1
            print(count, z.read("zz-after.txt").decode())
            """, archive.path], in: directory.url)
        #expect(python.stdout == "\(size) after\n")
    }

    /// Offsets past 4 GiB (an archive of more than 4 GiB, too large to
    /// write here): the central record's offset goes to a zip64 field, alone,
    /// and the end records point past it.
    @Test func offsetsPast4GiBGoToZip64Fields() throws {
        let entry = ZipEntry(Self.fileHeader("late.txt", size: 10), plain: false, thresholds: .format)
        entry.offset = 5 << 30
        entry.compressedSize = 10
        let record = entry.centralRecord
        let fiveGiB: [UInt8] = [0, 0, 0, 0x40, 1, 0, 0, 0]
        #expect(Array(record[20..<28]) == [10, 0, 0, 0, 10, 0, 0, 0], "the sizes fit their 32 bits")
        #expect(Array(record[42..<46]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Array(record[54..<66]) == [0x01, 0x00, 0x08, 0x00] + fiveGiB, "a zip64 field holding the offset alone")
        #expect(record.count == 46 + 8 + 12 + 24)

        let ends = ZipDirectoryEnd(count: 1, size: UInt64(record.count), offset: (5 << 30) + 40).encoded(thresholds: .format)
        // The zip64 end record (56 bytes) with one entry, the directory's size and offset; its locator; the classic record.
        #expect(Array(ends[0..<4]) == [0x50, 0x4B, 0x06, 0x06] && ends[24] == 1 && ends[32] == 1 && ends[40] == 90)
        #expect(Array(ends[48..<56]) == [40, 0, 0, 0x40, 1, 0, 0, 0])
        #expect(Array(ends[56..<60]) == [0x50, 0x4B, 0x06, 0x07] && Array(ends[64..<72]) == [130, 0, 0, 0x40, 1, 0, 0, 0])
        #expect(Array(ends[76..<80]) == [0x50, 0x4B, 0x05, 0x06] && Array(ends[92..<96]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(ends.count == 56 + 20 + 22)
    }

    // MARK: - Failures

    /// A writer dropped midway, as when reading a file fails: it stops and
    /// joins its threads with jobs still queued and one half filled (the
    /// sanitizers check that nothing races or leaks).
    @Test func aWriterDroppedMidwayStops() throws {
        var output: [UInt8] = []
        var writer: ZipWriter? = try ZipWriter(options: ArchiveWriteOptions(format: .zip), name: "test.zip", workers: 2) { output += $0 }
        let contents = Self.text(20 * Self.chunk)
        try writer?.writeHeader(Self.fileHeader("large.txt", size: contents.count), stored: false)
        try contents.withUnsafeBytes { try writer?.writeData(UnsafeRawBufferPointer(rebasing: $0[..<(15 * Self.chunk + 999)]), entry: "large.txt") }
        writer = nil
        #expect(output.count < contents.count)
    }

    /// A sink that fails midway: the error names the archive and the entry
    /// being written, and the writer's threads are gone with it.
    @Test func aFailingSinkNamesTheEntry() throws {
        let tree = Self.tree(["a.txt": Self.text(1000), "b.txt": Self.text(20 * Self.chunk), "c.txt": Self.text(1000)])
        var written = 0
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveWriter.write(tree, options: ArchiveWriteOptions(format: .zip), name: "Full.zip") { bytes in
                written += bytes.count
                if written > 20_000 { throw ArchiveError(.io, archive: "Full.zip", message: "write failed: No space left on device (ENOSPC)") }
            }
        }
        #expect(error.archive == "Full.zip")
        #expect(error.entry == "b.txt", "\(error)")
    }
}
