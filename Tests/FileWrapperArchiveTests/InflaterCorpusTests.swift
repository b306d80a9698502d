import CArchive
import CSHA256
import CZlib
@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 38, item 1: the one inflater (``RawInflater``: ISA-L where the
/// build has it, zlib otherwise) gives zlib's bytes, and the gzip decoder
/// built on it (``GzipDecoder``) reads what libarchive's gzip filter,
/// which decoded gzip before, reads. Compared over every file of the
/// interop corpus and of Fixtures/ (the hostile cases among them) and over
/// gzip streams built here: outcome, bytes consumed and the SHA-256 of the
/// output, never the output itself.
@Suite struct InflaterCorpusTests {
    /// Every regular file of the corpus and of Fixtures/, sorted.
    static let files: [URL] = {
        let fixtures = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        return [CorpusTests.corpus, fixtures].flatMap { root -> [URL] in
            let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
            return (walk?.allObjects as? [URL] ?? []).filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
        }.sorted { $0.path < $1.path }
    }()

    /// The SHA-256 and length of bytes given a piece at a time.
    struct Digester {
        private var context = csha256_context()
        private(set) var count = 0
        init() { csha256_init(&context) }
        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            csha256_update(&context, bytes.baseAddress, bytes.count)
            count += bytes.count
        }
        mutating func digest() -> SHA256Digest {
            var bytes = [UInt8](repeating: 0, count: 32)
            csha256_final(&context, &bytes)
            return SHA256Digest(bytes: bytes)!
        }
    }

    /// Output past which a stream is not followed: the corpus's ratio bomb
    /// inflates to 1 GiB of zeros.
    static let outputLimit = 64 << 20

    /// How inflating a stream to the end of its input went.
    struct Inflated: Equatable, CustomStringConvertible {
        enum Status: Equatable { case ended, cutShort, damaged, outputLimit }
        var status: Status
        /// Input bytes taken up to the stream's end (every byte when it did
        /// not end); not compared at the output limit, where ISA-L has read
        /// further ahead than zlib.
        var consumed: Int
        /// Of the output (its first ``outputLimit`` bytes at the limit); not
        /// compared for a damaged stream, which ISA-L and zlib leave after
        /// different amounts of output.
        var digest: SHA256Digest
        var description: String { "\(status), \(consumed) bytes consumed, output \(digest.hex.prefix(16))" }

        static func == (lhs: Inflated, rhs: Inflated) -> Bool {
            guard lhs.status == rhs.status else { return false }
            switch lhs.status {
            case .damaged: return true
            case .outputLimit: return lhs.digest == rhs.digest
            case .ended, .cutShort: return lhs.consumed == rhs.consumed && lhs.digest == rhs.digest
            }
        }
    }

    /// One step of an inflater: consumed, produced, ended; nil when the input is damaged.
    typealias Step = (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) -> (Int, Int, Bool)?

    /// Feeds `input` to `step` in pieces of random sizes (`random`), into
    /// output room of random sizes, until the stream ends, fails or stops.
    static func inflate(_ input: UnsafeRawBufferPointer, random: inout SplitMix64, bytesReadPastEnd: () -> Int, _ step: Step) -> Inflated {
        var output = Digester()
        var room = [UInt8](repeating: 0, count: 1 << 16)
        var consumed = 0
        func outcome(_ status: Inflated.Status, consumed: Int) -> Inflated {
            Inflated(status: status, consumed: consumed, digest: output.digest())
        }
        while true {
            let pieceCount = min(input.count - consumed, Int(random.next() % 3000) + 1)
            let roomCount = Int(random.next() % UInt64(room.count)) + 1
            let result = room.withUnsafeMutableBytes { target in
                step(UnsafeRawBufferPointer(rebasing: input[consumed..<(consumed + pieceCount)]), UnsafeMutableRawBufferPointer(rebasing: target[..<roomCount]))
            }
            guard let (took, made, ended) = result else { return outcome(.damaged, consumed: consumed) }
            consumed += took
            room.withUnsafeBytes { output.add(UnsafeRawBufferPointer(rebasing: $0[..<min(made, outputLimit - output.count)])) }
            if ended { return outcome(.ended, consumed: consumed - bytesReadPastEnd()) }
            if output.count == outputLimit { return outcome(.outputLimit, consumed: consumed) }
            if took == 0, made == 0 { return outcome(consumed == input.count ? .cutShort : .damaged, consumed: consumed) }
        }
    }

    /// `input` inflated by ``RawInflater``.
    static func ours(_ input: UnsafeRawBufferPointer, seed: UInt64) -> Inflated {
        guard let inflater = RawInflater() else { preconditionFailure("no inflater") }
        var random = SplitMix64(seed: seed)
        return inflate(input, random: &random, bytesReadPastEnd: { inflater.bytesReadPastEnd().count }) { input, output in
            switch inflater.step(input, into: output) {
            case .progress(let consumed, let produced, let ended): (consumed, produced, ended)
            case .damaged, .outOfMemory: nil
            }
        }
    }

    /// `input` inflated by zlib itself, with the same pieces.
    static func zlib(_ input: UnsafeRawBufferPointer, seed: UInt64) -> Inflated {
        var stream = z_stream()
        precondition(inflateInit2_(&stream, -15, ZLIB_VERSION, CInt(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { inflateEnd(&stream) }
        var random = SplitMix64(seed: seed)
        return inflate(input, random: &random, bytesReadPastEnd: { 0 }) { input, output in
            stream.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
            stream.avail_in = uInt(input.count)
            stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(output.count)
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            let consumed = input.count - Int(stream.avail_in), produced = output.count - Int(stream.avail_out)
            switch status {
            case Z_STREAM_END: return (consumed, produced, true)
            case Z_OK, Z_BUF_ERROR: return (consumed, produced, false)
            default: return nil
            }
        }
    }

    /// Where a deflate stream may begin in `bytes`: after each zip local
    /// header of method 8 and after each gzip member header.
    static func deflateStarts(_ bytes: [UInt8]) -> [Int] {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        var starts: [Int] = []
        var index = 0
        while index + 30 <= bytes.count {
            defer { index += 1 }
            if bytes[index] == 0x50, bytes[index + 1] == 0x4B, bytes[index + 2] == 3, bytes[index + 3] == 4, u16(index + 8) == 8 {
                starts.append(index + 30 + u16(index + 26) + u16(index + 28))
            } else if bytes[index] == 0x1F, bytes[index + 1] == 0x8B, bytes[index + 2] == 8, bytes[index + 3] & 0xE0 == 0,
                      let start = gzipDataStart(bytes, header: index) {
                starts.append(start)
            }
        }
        return starts.filter { $0 < bytes.count }
    }

    /// Where the deflate data of the gzip member whose header is at `header` begins.
    static func gzipDataStart(_ bytes: [UInt8], header: Int) -> Int? {
        let flags = bytes[header + 3]
        var at = header + 10
        if flags & 4 != 0 {
            guard at + 2 <= bytes.count else { return nil }
            at += 2 + (Int(bytes[at]) | Int(bytes[at + 1]) << 8)
        }
        for flag: UInt8 in [8, 16] where flags & flag != 0 {
            guard let end = bytes[min(at, bytes.count)...].firstIndex(of: 0) else { return nil }
            at = end + 1
        }
        if flags & 2 != 0 { at += 2 }
        return at <= bytes.count ? at : nil
    }

    @Test func everyDeflateStreamOfEveryFileInflatesAsZlibInflatesIt() throws {
        var streams = 0
        for file in Self.files {
            let bytes = Array(try Data(contentsOf: file))
            for start in Self.deflateStarts(bytes) {
                let (ours, zlib) = bytes.withUnsafeBytes { whole in
                    let input = UnsafeRawBufferPointer(rebasing: whole[start...])
                    return (Self.ours(input, seed: UInt64(start)), Self.zlib(input, seed: UInt64(start)))
                }
                #expect(ours == zlib, "\(file.lastPathComponent) at \(start): ours \(ours), zlib \(zlib)")
                streams += 1
            }
        }
        // The corpus holds hundreds of zip members and gzip streams.
        #expect(streams > 500, "\(streams) streams")
    }

    /// What a gzip decoder gave: the digest and length of its output, or that it failed.
    enum Decoded: Equatable {
        case bytes(SHA256Digest, count: Int)
        case failed
    }

    /// The whole output of `decoder`, read in pieces of `pieceSize` bytes.
    static func decodeAll(_ decoder: any CompressionDecoder, pieceSize: Int) -> Decoded {
        var output = Digester()
        var buffer = [UInt8](repeating: 0, count: pieceSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { decoder.read(into: $0) }
            if count < 0 { return .failed }
            if count == 0 { return .bytes(output.digest(), count: output.count) }
            buffer.withUnsafeBytes { output.add(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
    }

    /// The file at `url` decoded by ``GzipDecoder`` and by libarchive's gzip
    /// filter (``LibArchiveFilter``, as the reader used it before), each
    /// from a descriptor (so in blocks of 64 KiB).
    static func bothDecodings(of url: URL) throws -> (ours: Decoded, libarchive: Decoded) {
        func decode(_ make: (ArchiveReadSource) throws -> any CompressionDecoder) throws -> Decoded {
            let fd = open(url.path, O_RDONLY)
            try #require(fd >= 0)
            defer { close(fd) }
            guard let decoder = try? make(ArchiveReadSource(fd: fd, name: url.lastPathComponent)) else { return .failed }
            return decodeAll(decoder, pieceSize: 40_009)
        }
        return (try decode { try GzipDecoder(input: $0) },
                try decode { try LibArchiveFilter(input: $0, filter: { archive_read_append_filter($0, ARCHIVE_FILTER_GZIP) }) })
    }

    @Test func everyGzipFileDecodesAsLibarchivesFilterDecodesIt() throws {
        let gzips = Self.files.filter { ArchiveReadFormats.Compression.starting(Array((try? Data(contentsOf: $0).prefix(64)) ?? Data())) == .gzip }
        for file in gzips {
            let (ours, libarchive) = try Self.bothDecodings(of: file)
            #expect(ours == libarchive, "\(file.lastPathComponent): ours \(ours), libarchive \(libarchive)")
        }
        #expect(gzips.count > 10, "\(gzips.count) gzip files")
    }

    /// `bytes` as one raw deflate stream, by zlib at `level`.
    static func deflate(_ bytes: [UInt8], level: CInt = 6) -> [UInt8] {
        var stream = z_stream()
        precondition(deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, CInt(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let count = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { target in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(input.count)
                stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(target.count)
                precondition(CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return target.count - Int(stream.avail_out)
            }
        }
        return Array(output[..<count])
    }

    /// A gzip member of `contents`, with the optional header fields that
    /// `flags` names (FHCRC 2, FEXTRA 4, FNAME 8, FCOMMENT 16); its trailer
    /// holds the CRC-32 and length, which the readers skip.
    static func member(_ contents: [UInt8], flags: UInt8 = 0, level: CInt = 6) -> [UInt8] {
        var bytes: [UInt8] = [0x1F, 0x8B, 8, flags, 0, 0, 0, 0, 0, 3]
        if flags & 4 != 0 { bytes += [6, 0, 0x42, 0x43, 2, 0, 0x12, 0x34] }  // bgzip's BC field
        if flags & 8 != 0 { bytes += Array("name.tar".utf8) + [0] }
        if flags & 16 != 0 { bytes += Array("a comment".utf8) + [0] }
        if flags & 2 != 0 { bytes += [0xAB, 0xCD] }
        bytes += deflate(contents, level: level)
        let crc = contents.withUnsafeBytes { UInt32(crc32_z(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), $0.count)) }
        for value in [crc, UInt32(truncatingIfNeeded: contents.count)] {
            bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        return bytes
    }

    /// Gzip streams built here, each named for a test case: members one
    /// after another as gzip (`cat a.gz b.gz`), `pigz -i` (many small
    /// members, across the 64 KiB blocks the source reads) and bgzip (an
    /// extra field, an empty last member) write them; every optional
    /// header field; what may follow a member; and cuts.
    static let built: [String: [UInt8]] = {
        var random = SplitMix64(seed: 38)
        let noise = random.bytes(150_000)
        let text: [UInt8] = (0..<4000).flatMap { (line: Int) -> [UInt8] in Array("line \(line) of a tar member\n".utf8) }
        let one: [UInt8] = member(text)
        var many: [UInt8] = []
        for index in 0..<120 {
            many += member(smallPiece(index, of: noise), level: CInt(index % 10))
        }
        var bgzip: [UInt8] = []
        for index in 0..<40 {
            bgzip += member(Array(text[(index * 2000)..<(index * 2000 + 2000)]), flags: 4)
        }
        bgzip += member([], flags: 4)
        var damagedFirst = one
        damagedFirst[40] = ~damagedFirst[40]
        var damagedLater = many
        damagedLater[many.count - 500] = ~damagedLater[many.count - 500]
        var streams: [String: [UInt8]] = [:]
        streams["one member"] = one
        streams["two members"] = one + member(noise)
        streams["many small members"] = many
        streams["bgzip blocks"] = bgzip
        streams["every header field"] = member(text, flags: 2 | 4 | 8 | 16) + member(text, flags: 8)
        streams["stored blocks"] = member(noise, level: 0)
        streams["empty member"] = member([])
        streams["trailing zeros"] = one + [UInt8](repeating: 0, count: 1024)
        streams["trailing garbage"] = many + Array("garbage after the last member".utf8)
        streams["trailing header start"] = one + [0x1F, 0x8B, 8]
        streams["header with reserved flag after a member"] = one + member(text, flags: 0x20)
        streams["cut in the data"] = Array(many.prefix(many.count / 2))
        streams["cut in the trailer"] = Array(one.dropLast(3))
        streams["cut in the first header"] = Array(one.prefix(6))
        streams["cut in a name"] = Array(member(text, flags: 8).prefix(14))
        streams["damaged data in the first block"] = damagedFirst
        streams["damaged data in the last member"] = damagedLater
        return streams
    }()

    /// The contents of the `index`th of the "many small members": 1000
    /// bytes and 7 more for each before it.
    static func smallPiece(_ index: Int, of noise: [UInt8]) -> [UInt8] {
        Array(noise[(index * 1000)..<(index * 1000 + 1000 + index * 7)])
    }

    @Test(arguments: built.keys.sorted())
    func builtGzipStreamDecodesAsLibarchivesFilterDecodesIt(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("stream.gz")
        try Data(Self.built[name]!).write(to: url)
        let (ours, libarchive) = try Self.bothDecodings(of: url)
        if name == "damaged data in the first block" {
            // libarchive's handle takes a first read that fails for an
            // empty input (its `empty` format bids on it), and so did the
            // reader: a .tar.gz damaged there read as an empty archive.
            #expect(libarchive == .bytes(SHA256Digest.of([]), count: 0))
            #expect(ours == .failed)
        } else {
            #expect(ours == libarchive, "ours \(ours), libarchive \(libarchive)")
        }
    }

    /// A build that found ISA-L's header inflates with it.
    @Test func aBuildWithISALInflatesWithIt() {
        let found = FileManager.default.fileExists(atPath: "/usr/include/isa-l.h")
        #expect(ArchiveLibrary.inflater.hasPrefix(found ? "ISA-L 2." : "zlib 1."), "\(ArchiveLibrary.inflater)")
    }

    /// The reader decodes gzip with ``GzipDecoder``: a .tar.gz damaged in
    /// its first block is refused, where libarchive's filter gave an empty
    /// archive.
    @Test func aTarGzDamagedInItsFirstBlockIsRefusedNotReadAsEmpty() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("damaged.tar.gz")
        try Data(Self.built["damaged data in the first block"]!).write(to: url)
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveUnpacker.unpack(archiveAt: url, to: directory.url.appendingPathComponent("out"))
        }
        #expect(error.code == .corrupt)
        #expect(error.message == "gzip decompression failed", "\(error)")
        #expect(try Disk.names(in: directory.url) == ["damaged.tar.gz"])
    }

    @Test func concatenatedMembersDecodeToEveryMembersBytes() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("stream.gz")
        try Data(Self.built["many small members"]!).write(to: url)
        let (ours, _) = try Self.bothDecodings(of: url)
        // The noise that ``built`` made first from the same seed.
        var random = SplitMix64(seed: 38)
        let noise = random.bytes(150_000)
        let expected: [UInt8] = (0..<120).flatMap { Self.smallPiece($0, of: noise) }
        #expect(ours == .bytes(SHA256Digest.of(expected), count: expected.count))
    }
}
