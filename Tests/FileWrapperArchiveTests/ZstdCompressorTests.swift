@testable import FileWrapperArchive
import Foundation
import Testing
import TestSupport

/// Our zstd compressor: a frame per chunk, compressed on the workers and
/// passed on in order, which the zstd tool decodes as one stream.
@Suite(.startsProcesses) struct ZstdCompressorTests {
    static let chunk = ZstdCompressor.chunkSize

    /// Text and bytes that do not compress, so that frames differ in size.
    static func bytes(_ count: Int) -> [UInt8] {
        let text = Array("a line of a document, with some words that repeat\n".utf8)
        return (0..<count).map { index in
            index / 100_000 % 2 == 0 ? text[index % text.count] : UInt8(truncatingIfNeeded: (index &* 2_654_435_761) >> 13)
        }
    }

    /// `bytes` compressed, given to the compressor `piece` bytes at a time.
    static func compress(_ bytes: [UInt8], piece: Int) throws -> Data {
        var compressed = Data()
        let compressor = try ZstdCompressor(level: nil, name: "test.zst") { compressed.append(contentsOf: $0) }
        try bytes.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let end = min(all.count, offset + piece)
                try compressor.write(UnsafeRawBufferPointer(rebasing: all[offset..<end]))
                offset = end
            }
        }
        try compressor.finish()
        return compressed
    }

    /// The number of frames `zstd -lv` counts in `file`, and the bytes
    /// `zstd -d` gives back.
    static func decode(_ file: URL, in directory: URL) throws -> (frames: Int, contents: Data) {
        let listing = try Interop.run("zstd", ["-lv", file.path], in: directory).stdout
        let line = try #require(listing.split(separator: "\n").first { $0.hasPrefix("# Zstandard Frames:") })
        let frames = try #require(Int(line.split(separator: " ").last!))
        let decoded = directory.appendingPathComponent("decoded")
        try Interop.run("zstd", ["-q", "-d", "-f", file.path, "-o", decoded.path], in: directory)
        return (frames, try Data(contentsOf: decoded))
    }

    @Test(arguments: [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk + 12_345])
    func aStreamIsAFrameAChunkAndDecodesWhole(length: Int) throws {
        let directory = try TemporaryDirectory()
        let file = directory.appending("stream.zst")
        let original = Self.bytes(length)
        try Self.compress(original, piece: 100_003).write(to: file)

        let (frames, contents) = try Self.decode(file, in: directory.url)
        #expect(frames == max(1, (length + Self.chunk - 1) / Self.chunk))
        #expect(contents == Data(original))
    }

    /// However the stream is handed over, the frames are the same bytes:
    /// they are cut at fixed offsets and compressed alone.
    @Test func theBytesDependOnlyOnTheStream() throws {
        let original = Self.bytes(2 * Self.chunk + 777)
        let whole = try Self.compress(original, piece: original.count)
        #expect(try Self.compress(original, piece: 4096) == whole)
        #expect(try Self.compress(original, piece: Self.chunk + 1) == whole)
    }
}
