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

    /// Bytes libarchive allocates for each pack stream, folder, unpacked
    /// stream and file the header counts, rounded up.
    private static let costs = (packStream: UInt64(24), folder: UInt64(128), unpackStream: UInt64(16), file: UInt64(128))

    /// The header's property IDs (7zFormat.txt).
    private enum Property: UInt8 {
        case end = 0x00, header = 0x01, archiveProperties = 0x02, mainStreamsInfo = 0x04, filesInfo = 0x05
        case packInfo = 0x06, unpackInfo = 0x07, subStreamsInfo = 0x08, size = 0x09, crc = 0x0A, folder = 0x0B
        case codersUnpackSize = 0x0C, numUnpackStream = 0x0D, encodedHeader = 0x17
    }

    /// What libarchive would refuse anyway: nothing more to check.
    private struct Malformed: Error {}

    /// Whether an input that starts with `head` may be a 7z to libarchive:
    /// the signature, or a program that may carry one (`MZ`, ELF).
    static func mayBeSevenZip(_ head: [UInt8]) -> Bool {
        head.starts(with: signature) || head.starts(with: Array("MZ".utf8)) || head.starts(with: [0x7F, 0x45, 0x4C, 0x46])
    }

    /// Checks the header of the 7z that `source` holds, or refuses a 7z
    /// that cannot seek (libarchive reads it only by seeking to its end).
    static func check(_ source: ArchiveReadSource, budget: MemoryBudget) throws {
        guard !source.isSequential else {
            guard source.head.starts(with: signature) else { return }
            throw ArchiveError(.unsupportedFormat, archive: source.name, message: "the archive is 7z, which is read only from a file "
                               + "or bytes in memory: its header is at its end, and libarchive must seek to it")
        }
        let starts = source.head.starts(with: signature) ? [0] : selfExtractingStarts(source)
        for start in starts {
            do {
                try check(startHeaderAt: start, in: source, budget: budget)
            } catch is Malformed {
                continue
            }
        }
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
    private static func check(startHeaderAt start: Int64, in source: ArchiveReadSource, budget: MemoryBudget) throws {
        let startHeader = try read(source, at: start, count: 32)
        let (headerOffset, headerSize) = (u64(startHeader, 12), u64(startHeader, 20))
        guard headerSize > 0, headerOffset <= UInt64(Int64.max) - 32 - UInt64(start) else { return }
        guard budget.allows(headerSize) else {
            throw budget.refusal("the 7z header at byte \(start) is \(headerSize) bytes long, which libarchive reads whole")
        }
        let base = start + 32
        var header = Reader(bytes: try read(source, at: base + Int64(headerOffset), count: Int(headerSize)))
        switch try header.property() {
        case .header:
            try checkHeader(&header, budget: budget)
        case .encodedHeader:
            let streams = try checkStreamsInfo(&header, budget: budget)
            guard let folder = streams.folders.first, let packSize = streams.packSizes.first else { return }
            let size = folder.outputSize
            guard budget.allows(size) else {
                throw budget.refusal("the 7z header at byte \(start) decodes to \(size) bytes, which libarchive holds whole")
            }
            var decoded = Reader(bytes: try decode(folder, from: source, at: base + Int64(clamping: streams.packPosition),
                                                   count: packSize, size: Int(size), archive: source.name))
            guard try decoded.property() == .header else { return }
            try checkHeader(&decoded, budget: budget)
        default:
            return
        }
    }

    /// Checks a header after its `kHeader`: its streams, and how many files it lists.
    private static func checkHeader(_ header: inout Reader, budget: MemoryBudget) throws {
        var property = try header.byte()
        if property == Property.archiveProperties.rawValue {
            // As libarchive reads them: an ID and a number each, until a 0.
            while try header.byte() != 0 { _ = try header.number() }
            property = try header.byte()
        }
        var streams = StreamsInfo()
        if property == Property.mainStreamsInfo.rawValue {
            streams = try checkStreamsInfo(&header, budget: budget)
            property = try header.byte()
        }
        let files = property == Property.filesInfo.rawValue ? try header.number() : 0
        guard files <= 100_000_000 else { return }
        let cost = costs.packStream * UInt64(streams.packSizes.count) + costs.folder * UInt64(streams.folders.count)
            + costs.unpackStream * streams.unpackStreams + costs.file * files
        guard budget.allows(cost) else {
            throw budget.refusal("the 7z header lists \(files) files, \(streams.folders.count) folders and "
                                 + "\(streams.unpackStreams) streams, for which libarchive allocates about \(cost) bytes")
        }
    }

    /// The streams a header describes.
    private struct StreamsInfo {
        var packPosition: UInt64 = 0
        var packSizes: [UInt64] = []
        var folders: [Folder] = []
        var unpackStreams: UInt64 = 0
    }

    /// One folder: its coders, how they are bound, and their output sizes.
    private struct Folder {
        struct Coder {
            var method: UInt64
            var inputs: UInt64
            var outputs: UInt64
            var properties: [UInt8]
        }

        var coders: [Coder] = []
        var bindPairs: [(input: UInt64, output: UInt64)] = []
        var outputSizes: [UInt64] = []
        var hasDigest = false

        /// The size of the output no coder takes in: the folder's.
        var outputSize: UInt64 {
            let bound = Set(bindPairs.map(\.output))
            return outputSizes.indices.reversed().first { !bound.contains(UInt64($0)) }.map { outputSizes[$0] } ?? 0
        }
    }

    /// Reads `StreamsInfo` as libarchive does, and checks each folder's
    /// coders; throws ``Malformed`` where libarchive would fail.
    private static func checkStreamsInfo(_ header: inout Reader, budget: MemoryBudget) throws -> StreamsInfo {
        var info = StreamsInfo()
        var property = try header.property()
        if property == .packInfo {
            info.packPosition = try header.number()
            let count = try header.count()
            guard count > 0, try header.property() == .size else { throw Malformed() }
            info.packSizes = try (0..<count).map { _ in try header.number() }
            switch try header.property() {
            case .end:
                break
            case .crc:
                try header.skipDigests(count)
                guard try header.property() == .end else { throw Malformed() }
            default:
                throw Malformed()
            }
            property = try header.property()
        }
        if property == .unpackInfo {
            guard try header.property() == .folder else { throw Malformed() }
            let count = try header.count()
            switch try header.byte() {
            case 0: info.folders = try (0..<count).map { _ in try readFolder(&header) }
            case 1: _ = try header.number()
            default: throw Malformed()
            }
            guard try header.property() == .codersUnpackSize else { throw Malformed() }
            for index in info.folders.indices {
                info.folders[index].outputSizes = try (0..<info.folders[index].coders.reduce(0) { $0 + Int($1.outputs) }).map { _ in try header.number() }
            }
            switch try header.property() {
            case .end:
                break
            case .crc:
                let defined = try header.skipDigests(info.folders.count)
                for index in info.folders.indices { info.folders[index].hasDigest = defined[index] }
                guard try header.property() == .end else { throw Malformed() }
            default:
                throw Malformed()
            }
            for folder in info.folders { try checkCoders(folder, budget: budget) }
            property = try header.property()
        }
        var streamsPerFolder = [UInt64](repeating: 1, count: info.folders.count)
        if property == .subStreamsInfo {
            property = try header.property()
            if property == .numUnpackStream {
                streamsPerFolder = try info.folders.map { _ in try header.number() }
                guard streamsPerFolder.allSatisfy({ $0 <= 100_000_000 }) else { throw Malformed() }
                property = try header.property()
            }
            if property == .size {
                for streams in streamsPerFolder where streams > 1 {
                    for _ in 1..<streams { _ = try header.number() }
                }
                property = try header.property()
            }
            if property == .crc {
                let digests = zip(info.folders, streamsPerFolder).reduce(0) { $0 + ($1.1 != 1 || !$1.0.hasDigest ? Int($1.1) : 0) }
                try header.skipDigests(digests)
                property = try header.property()
            }
            guard property == .end else { throw Malformed() }
            property = try header.property()
        }
        info.unpackStreams = streamsPerFolder.reduce(0, +)
        guard property == .end else { throw Malformed() }
        return info
    }

    /// Reads one folder as libarchive's `read_Folder` does.
    private static func readFolder(_ header: inout Reader) throws -> Folder {
        var folder = Folder()
        let count = try header.count()
        guard count <= 4 else { throw Malformed() }
        var (inputs, outputs): (UInt64, UInt64) = (0, 0)
        for _ in 0..<count {
            let flags = try header.byte()
            guard flags & 0x80 == 0 else { throw Malformed() }
            let method = try header.bytes(Int(flags & 0x0F)).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            var coder = Folder.Coder(method: method, inputs: 1, outputs: 1, properties: [])
            if flags & 0x10 != 0 {
                coder.inputs = try header.number()
                coder.outputs = try header.number()
                guard coder.inputs <= 100_000_000, coder.outputs <= 100_000_000 else { throw Malformed() }
            }
            if flags & 0x20 != 0 {
                let size = try header.number()
                coder.properties = try header.bytes(Int(clamping: size))
            }
            inputs += coder.inputs
            outputs += coder.outputs
            folder.coders.append(coder)
        }
        guard outputs > 0, inputs + 1 >= outputs else { throw Malformed() }
        for _ in 1..<outputs {
            let input = try header.number()
            folder.bindPairs.append((input, try header.number()))
        }
        let packed = inputs - (outputs - 1)
        if packed > 1 {
            for _ in 0..<packed { _ = try header.number() }
        }
        return folder
    }

    /// Refuses a coder whose dictionary or model needs more memory than the
    /// budget, and a BCJ2 folder whose streams (which libarchive decodes
    /// into memory whole) are together larger.
    private static func checkCoders(_ folder: Folder, budget: MemoryBudget) throws {
        var firstInput: UInt64 = 0
        for coder in folder.coders {
            defer { firstInput += coder.inputs }
            guard let (name, needed) = demand(of: coder, firstInput: firstInput, in: folder), !budget.allows(needed) else { continue }
            throw budget.refusal("a folder of the 7z header is coded with \(name), which needs \(needed) bytes of memory to decode")
        }
    }

    /// The method of `coder` (whose first input is `firstInput` of the
    /// folder's) and the memory libarchive allocates for it, when that
    /// depends on what the header declares.
    private static func demand(of coder: Folder.Coder, firstInput: UInt64, in folder: Folder) -> (String, UInt64)? {
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
                guard let pair = folder.bindPairs.first(where: { $0.input == firstInput + UInt64(input) }),
                      pair.output < folder.outputSizes.count
                else { continue }
                total = total.addingReportingOverflow(folder.outputSizes[Int(pair.output)]).overflow
                    ? UInt64.max : total + folder.outputSizes[Int(pair.output)]
            }
            return ("BCJ2", total)
        default:
            return nil
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

    private static func u32(_ bytes: some RandomAccessCollection<UInt8>, _ at: Int) -> UInt32 {
        let start = bytes.index(bytes.startIndex, offsetBy: at)
        return bytes[start..<bytes.index(start, offsetBy: 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<(at + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Reads a header's bytes, numbers and property IDs in order;
    /// ``Malformed`` past its end.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func byte() throws -> UInt8 {
            guard position < bytes.count else { throw Malformed() }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func bytes(_ count: Int) throws -> [UInt8] {
            guard count >= 0, count <= bytes.count - position else { throw Malformed() }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }

        mutating func property() throws -> Property? {
            Property(rawValue: try byte())
        }

        /// A 7z number: a first byte whose leading 1 bits say how many more
        /// bytes follow (little-endian), the rest of it the high bits.
        mutating func number() throws -> UInt64 {
            let first = try byte()
            var value: UInt64 = 0
            var mask: UInt8 = 0x80
            for index in 0..<8 {
                guard first & mask != 0 else {
                    return value + (UInt64(first & (mask &- 1)) << (8 * index))
                }
                value |= UInt64(try byte()) << (8 * index)
                mask >>= 1
            }
            return value
        }

        /// A number that counts entries, at most libarchive's 100 million.
        mutating func count() throws -> Int {
            let value = try number()
            guard value <= 100_000_000 else { throw Malformed() }
            return Int(value)
        }

        /// Passes over the digests of `count` items; which are defined.
        @discardableResult
        mutating func skipDigests(_ count: Int) throws -> [Bool] {
            guard count > 0 else { throw Malformed() }
            var defined = [Bool](repeating: true, count: count)
            if try byte() == 0 {
                let bits = try bytes((count + 7) / 8)
                defined = (0..<count).map { bits[$0 / 8] & (0x80 >> ($0 % 8)) != 0 }
            }
            _ = try bytes(4 * defined.filter { $0 }.count)
            return defined
        }
    }
}
