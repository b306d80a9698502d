import Foundation
import Testing
import TestSupport
@testable import FileWrapperArchive
import FileWrapperKit

/// Whether our zip writer stores or deflates a file of several chunks,
/// judged from samples spread across the whole file: a file that starts
/// with random bytes and goes on as text is deflated to within 1 % of
/// Info-ZIP's size, one that is random throughout is stored, from each
/// source that can be read ahead (a tree on disk, a wrapper in memory, a
/// wrapper read lazily from disk). The archives are read back by Info-ZIP
/// and Python's zipfile.
@Suite(.startsProcesses) struct ZipMethodChoiceTests {
    /// The files, made for each test that needs them (held in statics,
    /// LeakSanitizer took their storage for leaked).
    struct Files {
        let random = ZipWriterTests.random(1 << 20, seed: 41)
        let text = ZipWriterTests.text(1 << 20, seed: 43)
        /// Random bytes then text: what the first 64 KiB alone judged stored.
        var randomThenText: Data { random + text }
        var textThenRandom: Data { text + random }
        /// Random throughout, with a tail shorter than a sample.
        let allRandom = ZipWriterTests.random(8 * ZipWriter.chunkSize + 1000, seed: 47)

        var all: [String: Data] {
            ["random-then-text.bin": randomThenText, "text-then-random.bin": textThenRandom, "all-random.bin": allRandom]
        }
    }

    /// Each file's method and compressed size in `archive`, by name bytes.
    static func entries(of archive: [UInt8]) throws -> [[UInt8]: (method: Int, compressed: UInt64)] {
        var entries: [[UInt8]: (method: Int, compressed: UInt64)] = [:]
        for record in try ZipHeaders(archive).central { entries[Array(record.name.utf8)] = (record.method, record.compressedSize) }
        return entries
    }

    @Test func mixedFilesAreDeflatedAndRandomOnesStoredFromEverySource() throws {
        let files = Files().all
        let directory = try TemporaryDirectory()
        let source = directory.appending("Source")
        for (name, contents) in files { try Disk.write(contents, to: source.appendingPathComponent(name)) }
        try Interop.run("zip", ["-qX", "../info-zip.zip"] + files.keys.sorted(), in: source)
        let infoZip = try Self.entries(of: [UInt8](Data(contentsOf: directory.appending("info-zip.zip"))))

        // The three sources the writer samples: the walk's open files, a wrapper's bytes in memory, a lazy wrapper's file.
        try ArchiveWriter.write(contentsOf: source, to: directory.appending("from-disk.zip"), options: ArchiveWriteOptions(format: .zip))
        try ArchiveWriter.write(ZipWriterTests.tree(files), to: directory.appending("from-memory.zip"), options: ArchiveWriteOptions(format: .zip))
        let lazy = try FileWrapper(url: source)
        try ArchiveWriter.write(lazy, to: directory.appending("from-lazy-wrapper.zip"), options: ArchiveWriteOptions(format: .zip))
        #expect(lazy.fileWrappers?.values.allSatisfy { !$0.isRegularFileContentsLoaded } == true)

        for archive in ["from-disk.zip", "from-memory.zip", "from-lazy-wrapper.zip"] {
            let ours = try Self.entries(of: [UInt8](Data(contentsOf: directory.appending(archive))))
            for (name, contents) in files {
                let entry = try #require(ours[Array(name.utf8)], "\(archive): \(name)")
                let theirs = try #require(infoZip[Array(name.utf8)])
                if name == "all-random.bin" {
                    #expect(entry.method == 0, "\(archive): \(name)")
                    #expect(entry.compressed == UInt64(contents.count), "\(archive): \(name)")
                } else {
                    #expect(entry.method == 8, "\(archive): \(name)")
                    #expect(entry.compressed < UInt64(contents.count) * 3 / 4, "\(archive): \(name) is \(entry.compressed) bytes of \(contents.count)")
                    #expect(entry.compressed <= theirs.compressed + theirs.compressed / 100, "\(archive): \(name) is \(entry.compressed) bytes, Info-ZIP's \(theirs.compressed)")
                }
            }
            try Interop.run("unzip", ["-tq", archive], in: directory.url)
            let python = try Interop.run("python3", ["-c", """
                import sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                for info in z.infolist():
                    if z.read(info) != open(sys.argv[2] + "/" + info.filename, "rb").read(): print("differs:", info.filename)
                print(len(z.infolist()))
                """, archive, source.path], in: directory.url)
            #expect(python.stdout == "\(files.count)\n", "\(archive)")
        }
    }

    /// The writer reads its samples from the start of the file to its very
    /// end, before the file's first bytes come.
    @Test func samplesSpanTheWholeFileBeforeItsBytes() throws {
        let contents = Files().randomThenText
        var asked: [(offsets: [Int], length: Int)] = []
        var header = ZipWriterTests.fileHeader("random-then-text.bin", size: contents.count)
        header.samples = { offsets, length in
            asked.append((offsets, length))
            return offsets.map { [UInt8](contents[$0..<min($0 + length, contents.count)]) }
        }
        var archive: [UInt8] = []
        let writer = try ZipWriter(options: ArchiveWriteOptions(format: .zip), name: "test.zip") { archive += $0 }
        try writer.writeHeader(header, stored: false)
        #expect(asked.count == 1)
        try contents.withUnsafeBytes { try writer.writeData($0, entry: header.path) }
        try writer.close()

        let offsets = try #require(asked.first).offsets
        #expect(asked.first?.length == ZipWriter.sampleLength)
        #expect(offsets.count == ZipWriter.sampleCount)
        #expect(offsets.first == 0)
        #expect(offsets.last == contents.count - ZipWriter.sampleLength)
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 < $1 })
        #expect(try Self.entries(of: archive)[Array(header.path.utf8)]?.method == 8)
        let read = try ArchiveReader.fileWrapper(from: Data(archive))
        #expect(read.fileWrappers?[header.path]?.regularFileContents == contents)
    }

    /// A source that can only be read in order gives no samples: the file
    /// is judged from its first bytes, as a stream must be.
    @Test func aSourceReadOnlyInOrderIsJudgedFromItsFirstBytes() throws {
        var methods: [Int] = []
        let files = Files()
        for contents in [files.randomThenText, files.textThenRandom] {
            var header = ZipWriterTests.fileHeader("file.bin", size: contents.count)
            header.samples = { _, _ in nil }
            var archive: [UInt8] = []
            let writer = try ZipWriter(options: ArchiveWriteOptions(format: .zip), name: "test.zip") { archive += $0 }
            try writer.writeHeader(header, stored: false)
            try contents.withUnsafeBytes { try writer.writeData($0, entry: header.path) }
            try writer.close()
            methods.append(try #require(try Self.entries(of: archive)[Array("file.bin".utf8)]).method)
            let read = try ArchiveReader.fileWrapper(from: Data(archive))
            #expect(read.fileWrappers?["file.bin"]?.regularFileContents == contents)
        }
        #expect(methods == [0, 8])
    }
}
