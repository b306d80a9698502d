/// A gzip stream, its members one after another (gzip, `pigz -i`, bgzip),
/// inflated by ``RawInflater`` (ISA-L where the build has it) and read as
/// libarchive 3.6.2's gzip filter reads it, which decoded it before: a
/// member's header checked as that filter checks it (deflate, no reserved
/// flags; the extra field, name, comment and header CRC skipped), its
/// deflate stream, then the 8 bytes of its trailer, skipped (the filter
/// checks neither the CRC-32 nor the length). Bytes after a member that do
/// not begin a header end the stream (zeros that tape blocking leaves,
/// garbage), as there; input that ends inside a member's data or trailer
/// is an error. Memory is fixed: the inflater's and the input's blocks.
final class GzipDecoder: CompressionDecoder {
    private let input: ArchiveReadSource
    private let inflater: RawInflater
    private var block = UnsafeRawBufferPointer(start: nil, count: 0)
    private var used = 0
    private var inputEnded = false
    /// Bytes read past a member's deflate stream in earlier blocks, which
    /// come before `block[used...]`: the start of its trailer.
    private var carry: [UInt8] = []
    private var consumedBefore: Int64 = 0
    private var phase = Phase.header
    private(set) var error: ArchiveError?

    private enum Phase {
        case header, data, trailer, end
    }

    /// Decodes `input`.
    init(input: ArchiveReadSource) throws {
        guard let inflater = RawInflater() else {
            throw ArchiveError(.io, archive: input.name, message: "could not allocate an inflate stream for the gzip stream")
        }
        self.input = input
        self.inflater = inflater
    }

    var archiveBytesRead: Int64 {
        consumedBefore + Int64(used)
    }

    func rewound() -> (any CompressionDecoder)? {
        guard let input = input.rewound() else { return nil }
        return try? GzipDecoder(input: input)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard error == nil else { return -1 }
        do throws(ArchiveError) {
            return try decode(into: buffer)
        } catch {
            self.error = error
            return -1
        }
    }

    /// Fills `buffer` as far as the stream goes: how many bytes, 0 at its end.
    private func decode(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        var produced = 0
        while produced < buffer.count {
            switch phase {
            case .header:
                inflater.reset()
                phase = try readHeader() ? .data : .end
            case .data:
                // The trailer takes every byte read past a stream's end (8 at most).
                precondition(carry.isEmpty)
                let hasInput = try refill()
                let piece = hasInput ? UnsafeRawBufferPointer(rebasing: block[used...]) : UnsafeRawBufferPointer(start: nil, count: 0)
                switch inflater.step(piece, into: UnsafeMutableRawBufferPointer(rebasing: buffer[produced...])) {
                case .progress(let consumed, let made, let ended):
                    used += consumed
                    produced += made
                    if ended {
                        carry = inflater.bytesReadPastEnd()
                        phase = .trailer
                    } else if consumed == 0, made == 0 {
                        // With room, the inflater moves unless the input ran out or is not deflate.
                        throw ArchiveError(.corrupt, archive: input.name, message: hasInput ? "gzip decompression failed" : "truncated gzip input")
                    }
                case .damaged:
                    throw ArchiveError(.corrupt, archive: input.name, message: "gzip decompression failed")
                case .outOfMemory:
                    throw ArchiveError(.io, archive: input.name, message: "could not allocate memory to inflate the gzip stream")
                }
            case .trailer:
                for _ in 0..<8 where try nextByte() == nil {
                    throw ArchiveError(.corrupt, archive: input.name, message: "truncated gzip input")
                }
                phase = .header
            case .end:
                return produced
            }
        }
        return produced
    }

    /// Reads a member's header; false when the bytes do not begin one, or
    /// end inside it (which ends the stream).
    private func readHeader() throws(ArchiveError) -> Bool {
        var fixed: [UInt8] = []
        for _ in 0..<10 {
            guard let byte = try nextByte() else { return false }
            fixed.append(byte)
        }
        guard fixed[0] == 0x1F, fixed[1] == 0x8B, fixed[2] == 8, fixed[3] & 0xE0 == 0 else { return false }
        let flags = fixed[3]
        var skip = 0
        if flags & 0x04 != 0 {  // FEXTRA: a 2-byte length, then the field
            guard let low = try nextByte(), let high = try nextByte() else { return false }
            skip = Int(high) << 8 | Int(low)
        }
        for _ in 0..<skip where try nextByte() == nil {
            return false
        }
        for flag: UInt8 in [0x08, 0x10] where flags & flag != 0 {  // FNAME, FCOMMENT: ended by a zero byte
            while true {
                guard let byte = try nextByte() else { return false }
                if byte == 0 { break }
            }
        }
        if flags & 0x02 != 0 {  // FHCRC, not checked
            for _ in 0..<2 where try nextByte() == nil {
                return false
            }
        }
        return true
    }

    /// The next byte of the input; nil at its end.
    private func nextByte() throws(ArchiveError) -> UInt8? {
        if !carry.isEmpty { return carry.removeFirst() }
        guard try refill() else { return nil }
        defer { used += 1 }
        return block[used]
    }

    /// Makes `block[used...]` hold input, reading the next block when it
    /// is used up; false at the input's end.
    private func refill() throws(ArchiveError) -> Bool {
        while used == block.count {
            guard !inputEnded else { return false }
            guard let next = input.nextBlock() else {
                throw input.error ?? ArchiveError(.io, archive: input.name, message: "cannot read the gzip stream")
            }
            consumedBefore += Int64(block.count)
            (block, used, inputEnded) = (next, 0, next.isEmpty)
        }
        return true
    }
}
