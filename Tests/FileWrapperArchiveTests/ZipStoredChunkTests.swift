import Foundation
import Testing
import TestSupport
@testable import FileWrapperArchive
import FileWrapperKit

/// Within one deflated file, the zip writer copies the chunks that would
/// not shrink as stored blocks of the same deflate stream, and deflates
/// the others: a file of random chunks and text chunks comes out within
/// 1 % of Info-ZIP's size, its random chunks stored blocks, and every
/// reader inflates it to the same bytes (Info-ZIP, bsdtar, Python, ours).
@Suite(.startsProcesses) struct ZipStoredChunkTests {
    /// Text and random bytes in turn, a chunk each, ending with a random
    /// tail shorter than a chunk: the stream's last block is a stored one.
    struct Alternating {
        static let chunk = ZipWriter.chunkSize
        let segments = TestSizes.pick(full: 12, reduced: 6)
        let tail = 50_000
        let contents: Data

        init() {
            var contents = Data()
            for index in 0..<segments {
                let seed = UInt64(100 + index)
                contents += index % 2 == 0 ? ZipWriterTests.text(Self.chunk, seed: seed) : ZipWriterTests.random(Self.chunk, seed: seed)
            }
            contents += ZipWriterTests.random(tail, seed: 99)
            self.contents = contents
        }

        /// The random chunks' ranges, the tail last.
        var randomRanges: [Range<Int>] {
            stride(from: 1, to: segments, by: 2).map { $0 * Self.chunk..<($0 + 1) * Self.chunk } + [segments * Self.chunk..<contents.count]
        }
    }

    /// `bytes` as stored blocks, as RFC 1951 (3.2.4) lays them out after a
    /// byte-aligned point: per block of at most 65,535 bytes, a header byte
    /// (BFINAL in bit 0, BTYPE 00), LEN and its one's complement NLEN (16
    /// bits, little-endian), then the bytes as they are.
    static func storedBlocks(_ bytes: Data, final: Bool) -> Data {
        var blocks = Data()
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let count = min(65_535, bytes.endIndex - start)
            let isLast = start + count == bytes.endIndex
            blocks += [final && isLast ? 1 : 0, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            blocks += bytes[start..<start + count]
            start += count
        }
        return blocks
    }

    @Test func randomChunksAreStoredBlocksAndTextChunksDeflated() throws {
        let file = Alternating()
        let directory = try TemporaryDirectory()
        let source = directory.appending("Source")
        try Disk.write(file.contents, to: source.appendingPathComponent("mixed.bin"))
        try Interop.run("zip", ["-qX", "../info-zip.zip", "mixed.bin"], in: source)
        try ArchiveWriter.write(contentsOf: source, to: directory.appending("ours.zip"), options: ArchiveWriteOptions(format: .zip))
        let archive = try Data(contentsOf: directory.appending("ours.zip"))

        let ours = try #require(try ZipMethodChoiceTests.entries(of: [UInt8](archive))[Array("mixed.bin".utf8)])
        let theirs = try #require(try ZipMethodChoiceTests.entries(of: [UInt8](Data(contentsOf: directory.appending("info-zip.zip"))))[Array("mixed.bin".utf8)])
        let randomBytes = file.randomRanges.reduce(0) { $0 + $1.count }
        #expect(ours.method == 8)
        // The text chunks deflated: far smaller than stored, within 1 % of Info-ZIP.
        #expect(ours.compressed < UInt64(randomBytes + (file.contents.count - randomBytes) / 2), "\(ours.compressed) of \(file.contents.count)")
        #expect(ours.compressed <= theirs.compressed + theirs.compressed / 100, "ours \(ours.compressed), Info-ZIP's \(theirs.compressed)")

        // Each random chunk appears verbatim in 65,535-byte stored blocks
        // (the tail in the final block), which only the writer's own
        // storing makes: zlib at level 6 puts random bytes in stored
        // blocks too, but of at most 16 KiB (its buffer of 16,383
        // symbols), with other headers, and ends each chunk's sync flush
        // with an empty block.
        for (index, range) in file.randomRanges.enumerated() {
            let last = index == file.randomRanges.count - 1
            let blocks = Self.storedBlocks(file.contents[range], final: last)
            #expect(archive.range(of: blocks) != nil, "the random bytes at \(range) are not stored blocks\(last ? " ending the stream" : "")")
        }

        // Every reader inflates it to the same bytes.
        try Interop.run("unzip", ["-tq", "ours.zip"], in: directory.url)
        let extracted = directory.appending("bsdtar")
        try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: true)
        try Interop.run("bsdtar", ["-xf", "../ours.zip"], in: extracted)
        #expect(try Data(contentsOf: extracted.appendingPathComponent("mixed.bin")) == file.contents, "bsdtar")
        let python = try Interop.run("python3", ["-c", """
            import sys, zipfile
            print(zipfile.ZipFile(sys.argv[1]).read("mixed.bin") == open(sys.argv[2], "rb").read())
            """, "ours.zip", source.appendingPathComponent("mixed.bin").path], in: directory.url)
        #expect(python.stdout == "True\n")
        let read = try ArchiveReader.fileWrapper(from: archive)
        #expect(read.fileWrappers?["mixed.bin"]?.regularFileContents == file.contents, "ArchiveReader")
        let lazy = try ZipContainer.fileWrapper(contentsOf: directory.appending("ours.zip"))
        #expect(lazy.fileWrappers?["mixed.bin"]?.regularFileContents == file.contents, "ZipContainer")
    }

    /// The chunks' choice depends on their bytes alone: the same archive
    /// with one worker or three, the bytes given in one block or in many.
    @Test func storedChunksDoNotDependOnWorkersOrBlocks() throws {
        let contents = Alternating().contents
        func zip(workers: Int, block: Int) throws -> [UInt8] {
            var output: [UInt8] = []
            let writer = try ZipWriter(options: ArchiveWriteOptions(format: .zip), name: "test.zip", workers: workers) { output += $0 }
            try writer.writeHeader(ZipWriterTests.fileHeader("mixed.bin", size: contents.count), stored: false)
            try contents.withUnsafeBytes { bytes in
                for start in stride(from: 0, to: bytes.count, by: block) {
                    try writer.writeData(UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + block, bytes.count)]), entry: "mixed.bin")
                }
            }
            try writer.close()
            return output
        }
        let reference = try zip(workers: 1, block: 1 << 20)
        #expect(try zip(workers: 3, block: 7919) == reference)
        #expect(try ArchiveReader.fileWrapper(from: Data(reference)).fileWrappers?["mixed.bin"]?.regularFileContents == contents)
    }

    /// A chunk half text, half random bytes is deflated, not stored: every
    /// chunk here is such a one, and the file comes out within 1 % of
    /// Info-ZIP's size (a stored chunk would lose its text half's saving,
    /// over a quarter of the chunk).
    @Test func aChunkOfTextAndRandomBytesIsDeflated() throws {
        let half = ZipWriter.chunkSize / 2
        var contents = Data()
        for index in 0..<TestSizes.pick(full: 16, reduced: 8) {
            contents += index % 2 == 0 ? ZipWriterTests.text(half, seed: UInt64(index)) : ZipWriterTests.random(half, seed: UInt64(index))
        }
        let directory = try TemporaryDirectory()
        try Disk.write(contents, to: directory.appending("halves.bin"))
        try Interop.run("zip", ["-qX", "info-zip.zip", "halves.bin"], in: directory.url)
        var archive: [UInt8] = []
        let writer = try ZipWriter(options: ArchiveWriteOptions(format: .zip), name: "test.zip") { archive += $0 }
        try writer.writeHeader(ZipWriterTests.fileHeader("halves.bin", size: contents.count), stored: false)
        try contents.withUnsafeBytes { try writer.writeData($0, entry: "halves.bin") }
        try writer.close()

        let ours = try #require(try ZipMethodChoiceTests.entries(of: archive)[Array("halves.bin".utf8)])
        let theirs = try #require(try ZipMethodChoiceTests.entries(of: [UInt8](Data(contentsOf: directory.appending("info-zip.zip"))))[Array("halves.bin".utf8)])
        #expect(ours.compressed <= theirs.compressed + theirs.compressed / 100, "ours \(ours.compressed), Info-ZIP's \(theirs.compressed)")
        #expect(try ArchiveReader.fileWrapper(from: Data(archive)).fileWrappers?["halves.bin"]?.regularFileContents == contents)
    }
}
