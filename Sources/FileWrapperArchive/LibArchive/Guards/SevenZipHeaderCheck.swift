import CLZMA
import Glibc

/// A 7z archive's header, read and checked here before libarchive reads it,
/// since libarchive 3.6.2 allocates what it declares with no limit of its
/// own: the memory each coder of each folder needs (the dictionary of LZMA
/// and LZMA2, which it gives liblzma with no limit, so a stream that
/// declared 3 GiB filled 298 MB decoding 300 MiB; the model of PPMd, up to
/// 4 GiB), the header itself (read, or decoded, whole), the streams of a
/// BCJ2 folder that it decodes into memory, and its tables of files,
/// folders and streams (up to 100 million entries each). The header is
/// parsed as libarchive parses it (`read_Header`, `read_StreamsInfo`), and
/// an encoded header decoded first, with liblzma. A 7z that starts with a
/// program (self-extracting) is checked at each start header that
/// libarchive may find (from 0x27000 to 0x60000, with a valid CRC).
enum SevenZipHeaderCheck {
    static let signature: [UInt8] = [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]

    /// What libarchive would refuse anyway: nothing more to check.
    struct Malformed: Error {}

    /// Whether an input that starts with `head` may be a 7z to libarchive:
    /// the signature, or a program that may carry one (`MZ`, ELF).
    static func mayBeSevenZip(_ head: [UInt8]) -> Bool {
        head.starts(with: signature) || head.starts(with: Array("MZ".utf8)) || head.starts(with: [0x7F, 0x45, 0x4C, 0x46])
    }

    /// Checks the header of the 7z that `source` holds, or refuses a 7z
    /// that cannot seek (libarchive reads it only by seeking to its end).
    /// Returns the names of its files as stored, in order, where it has one
    /// start header and they can be read (a self-extracting one too).
    static func check(_ source: ArchiveReadSource, budget: MemoryBudget) throws -> [[UInt8]]? {
        guard !source.isSequential else {
            guard source.head.starts(with: signature) else { return nil }
            throw ArchiveError(.unsupportedFormat, archive: source.name, message: "the archive is 7z, which is read only from a file "
                               + "or bytes in memory: its header is at its end, and libarchive must seek to it")
        }
        let starts = source.head.starts(with: signature) ? [0] : selfExtractingStarts(source)
        var names: [[UInt8]]?
        for start in starts {
            do {
                names = try check(startHeaderAt: start, in: source, budget: budget)
            } catch is Malformed {
                continue
            }
        }
        return starts.count == 1 ? names : nil
    }

    /// The offsets of the 7z start headers after a program, where
    /// libarchive looks for them.
    private static func selfExtractingStarts(_ source: ArchiveReadSource) -> [Int64] {
        guard let size = source.size, size > 0x27000 + 32 else { return [] }
        let length = Int(min(size, 0x60000 + 32) - 0x27000)
        var window = [UInt8](repeating: 0, count: length)
        guard window.withUnsafeMutableBytes({ source.copyBytes(at: 0x27000, into: $0) }) else { return [] }
        return window.withUnsafeBytes { bytes in
            var starts: [Int64] = []
            var from = 0
            while let at = bytes.firstIndex(of: signature, from: from), at + 32 <= bytes.count {
                let startHeader = UnsafeRawBufferPointer(rebasing: bytes[(at + 12)..<(at + 32)])
                if UInt32(truncatingIfNeeded: lzma_crc32(startHeader.baseAddress, 20, 0)) == u32(bytes, at + 8) {
                    starts.append(0x27000 + Int64(at))
                }
                from = at + 1
            }
            return starts
        }
    }

    /// Checks the archive whose start header is at `start`.
    private static func check(startHeaderAt start: Int64, in source: ArchiveReadSource, budget: MemoryBudget) throws -> [[UInt8]]? {
        let startHeader = try read(source, at: start, count: 32)
        let (headerOffset, headerSize) = (u64(startHeader, 12), u64(startHeader, 20))
        guard headerSize > 0, headerOffset <= UInt64(Int64.max) - 32 - UInt64(start) else { return nil }
        guard budget.allows(headerSize) else {
            throw budget.refusal("the 7z header at byte \(start) is \(headerSize) bytes long, which libarchive reads whole")
        }
        let base = start + 32
        var parser = Parser(bytes: try read(source, at: base + Int64(headerOffset), count: Int(headerSize)), budget: budget)
        switch try parser.property() {
        case .header:
            return try parser.checkHeader()
        case .encodedHeader:
            let streams = try parser.checkStreamsInfo()
            guard let folder = streams.first, let packSize = streams.firstPackSize else { return nil }
            let size = folder.outputSize
            guard budget.allows(size) else {
                throw budget.refusal("the 7z header at byte \(start) decodes to \(size) bytes, which libarchive holds whole")
            }
            let decoded = try decode(folder, from: source, at: base + Int64(clamping: streams.packPosition),
                                     count: packSize, size: Int(size), archive: source.name)
            var header = Parser(bytes: decoded, budget: budget)
            guard try header.property() == .header else { return nil }
            return try header.checkHeader()
        default:
            return nil
        }
    }

    /// The streams a header describes, as far as the checks need them.
    struct StreamsInfo {
        var packPosition: UInt64 = 0
        var firstPackSize: UInt64?
        /// The first folder, which encodes the header of an encoded header.
        var first: Folder?
    }

    /// One folder: its coders, how they are bound, and their output sizes.
    struct Folder {
        struct Coder {
            var method: UInt64
            var inputs: UInt64
            var outputs: UInt64
            var properties: [UInt8]
        }

        var coders: [Coder] = []
        var bindPairs: [(input: UInt64, output: UInt64)] = []
        var outputSizes: [UInt64] = []

        var outputCount: Int {
            coders.reduce(0) { $0 + Int($1.outputs) }
        }

        /// The size of the output no coder takes in: the folder's.
        var outputSize: UInt64 {
            let bound = Set(bindPairs.map(\.output))
            return outputSizes.indices.reversed().first { !bound.contains(UInt64($0)) }.map { outputSizes[$0] } ?? 0
        }

        /// Refuses a coder whose dictionary or model needs more memory than
        /// `budget`, and a BCJ2 coder whose streams (which libarchive decodes
        /// into memory whole) are together larger.
        func check(_ budget: MemoryBudget) throws {
            var firstInput: UInt64 = 0
            for coder in coders {
                defer { firstInput += coder.inputs }
                guard let (name, needed) = demand(of: coder, firstInput: firstInput), !budget.allows(needed) else { continue }
                throw budget.refusal("a folder of the 7z header is coded with \(name), which needs \(needed) bytes of memory to decode")
            }
        }

        /// The method of `coder` (whose first input is `firstInput` of the
        /// folder's) and the memory libarchive allocates for it, when that
        /// depends on what the header declares.
        private func demand(of coder: Coder, firstInput: UInt64) -> (String, UInt64)? {
            switch coder.method {
            case 0x03_0101 where coder.properties.count >= 5:
                return LZMAMemory.lzma(properties: coder.properties.prefix(5)).map { ("LZMA", $0) }
            case 0x21 where coder.properties.count >= 1:
                return LZMAMemory.lzma2(dictionary: coder.properties[0]).map { ("LZMA2", $0) }
            case 0x03_0401 where coder.properties.count >= 5:
                return ("PPMd", UInt64(u32(coder.properties, 1)))
            case 0x0303_011B:
                // Inputs 1 to 3 of BCJ2 are decoded into memory before the main one streams.
                var total: UInt64 = 0
                for input in 1...3 {
                    guard let pair = bindPairs.first(where: { $0.input == firstInput + UInt64(input) }),
                          pair.output < outputSizes.count
                    else { continue }
                    let (sum, overflow) = total.addingReportingOverflow(outputSizes[Int(pair.output)])
                    total = overflow ? UInt64.max : sum
                }
                return ("BCJ2", total)
            default:
                return nil
            }
        }
    }

    /// The header that `folder` encodes, `size` bytes, from the `count`
    /// packed bytes at `offset`: decoded by liblzma when the folder is one
    /// LZMA or LZMA2 coder (as 7-Zip writes it), or copied. An encrypted
    /// header is ``Malformed`` (libarchive refuses it); another method is
    /// refused, since what it hides could not be checked.
    private static func decode(_ folder: Folder, from source: ArchiveReadSource, at offset: Int64, count: UInt64, size: Int, archive: String) throws -> [UInt8] {
        guard !folder.coders.contains(where: { $0.method >> 16 == 0x06F1 }), count <= UInt64(Int64.max) else { throw Malformed() }
        guard folder.coders.count == 1, let coder = folder.coders.first, [0x00, 0x03_0101, 0x21].contains(coder.method) else {
            throw ArchiveError(.unsupportedFormat, archive: archive, message: "the 7z header is compressed with a method other than LZMA, "
                               + "LZMA2 or none, which this reader does not decode to check it against the memory limit")
        }
        let filter: lzma_vli
        var properties = coder.properties
        switch coder.method {
        case 0x00:
            guard count >= UInt64(size) else { throw Malformed() }
            return try read(source, at: offset, count: size)
        case 0x03_0101:
            filter = LZMAMemory.lzma1
            properties = Array(properties.prefix(5))
        default:
            filter = LZMAMemory.lzma2
            properties = Array(properties.prefix(1))
        }
        var filters = [lzma_filter(id: filter, options: nil), lzma_filter(id: UInt64.max, options: nil)]
        guard properties.withUnsafeBufferPointer({ lzma_properties_decode(&filters[0], nil, $0.baseAddress, $0.count) }) == LZMA_OK else {
            throw Malformed()
        }
        defer { free(filters[0].options) }
        var stream = lzma_stream()
        guard lzma_raw_decoder(&stream, filters) == LZMA_OK else { throw Malformed() }
        defer { lzma_end(&stream) }
        var output = [UInt8](repeating: 0, count: size)
        let piece = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
        defer { piece.deallocate() }
        var position = offset, remaining = count
        try output.withUnsafeMutableBufferPointer { output in
            stream.next_out = output.baseAddress
            stream.avail_out = output.count
            while stream.avail_out > 0 {
                if stream.avail_in == 0 {
                    guard remaining > 0 else { throw Malformed() }
                    let length = Int(min(remaining, UInt64(piece.count)))
                    guard source.copyBytes(at: position, into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: piece[..<length]))) else {
                        throw Malformed()
                    }
                    (position, remaining) = (position + Int64(length), remaining - UInt64(length))
                    stream.next_in = UnsafePointer(piece.baseAddress)
                    stream.avail_in = length
                }
                let status = lzma_code(&stream, LZMA_RUN)
                guard status == LZMA_OK || status == LZMA_STREAM_END else { throw Malformed() }
                if status == LZMA_STREAM_END { break }
            }
        }
        guard stream.avail_out == 0 else { throw Malformed() }
        return output
    }

    /// `count` bytes at `offset`; ``Malformed`` when the input ends first.
    private static func read(_ source: ArchiveReadSource, at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard offset >= 0, bytes.withUnsafeMutableBytes({ source.copyBytes(at: offset, into: $0) }) else { throw Malformed() }
        return bytes
    }

    static func u32(_ bytes: some RandomAccessCollection<UInt8>, _ at: Int) -> UInt32 {
        let start = bytes.index(bytes.startIndex, offsetBy: at)
        return bytes[start..<bytes.index(start, offsetBy: 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<(at + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
