@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// A member of a method that libarchive decodes over the member alone
/// (bzip2, LZMA, zstd, xz, PPMd) whose compressed data holds bytes after the
/// end of its compressed stream (its compressed size, in its local header
/// and central record alike, covers bytes the decoder does not take) is
/// refused, naming the archive and the member, as a deflated one is
/// (``ZipMemberTests``), and its bytes are never kept: its size and CRC-32
/// are right, so only the decoder's end tells. libarchive's checks tell it,
/// in a failure or in a warning that the reader takes as one.
@Suite(.startsProcesses) struct ZipTrailingBytesTests {
    typealias Tool = ZipLazyMethodTests.Tool

    /// The zip at `zip` with `bytes` inserted after the compressed data of
    /// `member`, its compressed size grown by their count in its local
    /// header and central record, and every offset past them moved.
    static func appendInside(_ zip: URL, _ bytes: [UInt8], member: String) throws {
        var data = Array(try Data(contentsOf: zip))
        let listing = try ZipLazyMethodTests.listing(data)
        let listed = try #require(listing[Array(member.utf8)])
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func set32(_ at: Int, _ value: Int) {
            withUnsafeBytes(of: UInt32(value).littleEndian) { data.replaceSubrange(at..<(at + 4), with: $0) }
        }
        // No data descriptor, whose sizes would need patching too.
        try #require(u16(listed.local + 6) & 0x08 == 0)
        let insertion = listed.local + 30 + u16(listed.local + 26) + u16(listed.local + 28) + listed.compressedSize
        let end = try #require((0...(data.count - 22)).reversed().first { u32($0) == 0x0605_4B50 })
        for other in listing.values where other.local >= insertion { set32(other.central + 42, other.local + bytes.count) }
        set32(end + 16, u32(end + 16) + bytes.count)
        set32(listed.central + 20, listed.compressedSize + bytes.count)
        set32(listed.local + 18, listed.compressedSize + bytes.count)
        data.insert(contentsOf: bytes, at: insertion)
        try Data(data).write(to: zip)
    }

    /// What libarchive 3.6.2 says of the bytes left in the member once its
    /// decoder ended: its count of the compressed bytes read against the
    /// compressed size (bzip2, PPMd: `ARCHIVE_WARN`, which the reader takes
    /// as a failure), liblzma's end of stream before the input's (LZMA with
    /// its end marker, xz), or the next zstd frame that the bytes do not begin.
    static func reason(_ tool: Tool) -> String {
        switch tool {
        case .pythonBzip2, .infoZipBzip2, .sevenZipBzip2, .sevenZipPPMd: "ZIP compressed data is wrong size"
        case .pythonLZMA, .sevenZipLZMA, .sevenZipXZ: "premature end of stream"
        case .zstdCrafted: "Unknown frame descriptor"
        }
    }

    @Test(arguments: Tool.allCases, [1, 16])
    func bytesAfterTheCompressedStreamAreRefused(tool: Tool, count: Int) throws {
        let directory = try TemporaryDirectory()
        let files = ZipLazyMethodTests.files(seed: 31)
        let zip = try ZipLazyMethodTests.zip(files, with: tool, in: directory)
        try Self.appendInside(zip, Array("trailing garbage".utf8.prefix(count)), member: "text.txt")
        #expect(try ZipLazyMethodTests.listing(zip)[Array("text.txt".utf8)]?.method == tool.method)
        try Self.expectRefusal(of: zip, reason: Self.reason(tool), others: files[1].contents)
    }

    /// LZMA without its end marker (7-Zip's `eos=off`), which ends where its
    /// size does: libarchive then gives liblzma no room for more output,
    /// and liblzma stops on the bytes left (`LZMA_BUF_ERROR`, 10).
    @Test func bytesAfterAnLZMAStreamWithoutItsEndMarkerAreRefused() throws {
        let directory = try TemporaryDirectory()
        let files = ZipLazyMethodTests.files(seed: 31)
        let source = try ZipLazyMethodTests.writeSources(files, in: directory)
        let zip = directory.appending("no-end-marker.zip")
        try Interop.run("7z", ["a", "-bd", "-tzip", "-mm=LZMA:eos=off", zip.path] + files.map(\.path), in: source)
        try Self.appendInside(zip, Array("trailing garbage".utf8), member: "text.txt")
        try Self.expectRefusal(of: zip, reason: "lzma unknown error 10", others: files[1].contents)
    }

    /// Reading text.txt of `zip` fails naming the archive, the member and
    /// `reason`, never loading its bytes; sub/noise.bin still reads as `others`.
    static func expectRefusal(of zip: URL, reason: String, others: [UInt8]) throws {
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        let text = try ZipContainerReadTests.wrapper(at: "text.txt", in: root)
        let error = try #require(throws: FileWrapperError.self) { try text.readRegularFileContents() }
        #expect(error.path == zip.path && error.code == .ioError, "\(error)")
        #expect(error.description.contains("member \"text.txt\": the compressed data cannot be decoded (") && error.description.contains(reason), "\(error)")
        #expect(!text.isRegularFileContentsLoaded)
        #expect(Array(try ZipContainerReadTests.wrapper(at: "sub/noise.bin", in: root).readRegularFileContents()) == others)
    }
}
