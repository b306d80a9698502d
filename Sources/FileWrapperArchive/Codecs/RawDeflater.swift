import CZlib

/// One zlib deflate stream writing raw deflate (no zlib or gzip wrapper, as
/// zip stores it) at a fixed level, reset and reused for every piece it
/// compresses rather than set up again each time.
final class RawDeflater {
    private let stream: UnsafeMutablePointer<z_stream>

    /// How a piece ends: the end of the deflate stream, or a sync flush that
    /// byte-aligns the output so that the next piece's deflate output can
    /// follow it as one stream.
    enum Ending {
        case finish, syncFlush
    }

    /// A stream at `level` (0-9); nil when zlib cannot allocate one.
    init?(level: Int) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits -15: raw deflate with zlib's largest window, 32 KiB.
        let status = deflateInit2_(
            stream, CInt(level), Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, CInt(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `input` into `output` as a fresh stream that may refer back
    /// to `dictionary` (the 32 KiB, at most, that precede `input`). Returns
    /// the number of bytes written, or nil when they do not fit in `output`.
    func compress(
        _ input: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer, ending: Ending
    ) -> Int? {
        guard deflateReset(stream) == Z_OK else { preconditionFailure("deflateReset on a broken stream") }
        if dictionary.count > 0 {
            let status = deflateSetDictionary(stream, dictionary.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(dictionary.count))
            precondition(status == Z_OK, "deflateSetDictionary failed: \(status)")
        }
        guard output.count > 0 else { return nil }
        stream.pointee.next_in = input.count > 0
            ? UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self)) : nil
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let status = deflate(stream, ending == .finish ? Z_FINISH : Z_SYNC_FLUSH)
        precondition(status != Z_STREAM_ERROR, "deflate on a broken stream")
        // Anything short of the whole piece ended means the output was too
        // small; a sync flush that fills the output exactly may have more
        // to give, so that counts as too small too.
        let complete = ending == .finish ? status == Z_STREAM_END : stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0
        guard complete else { return nil }
        return output.count - Int(stream.pointee.avail_out)
    }

    /// The most bytes a stored block holds: its length is 16 bits.
    static let storedBlockLimit = 65_535

    /// Writes `input` into `output` as stored blocks (RFC 1951, 3.2.4: a
    /// header byte, the length and its complement, then the bytes as they
    /// are), the last one final when `ending` is `.finish`: a piece that
    /// would not shrink, copied instead of deflated. It must follow a
    /// byte-aligned piece (the start of the stream, a sync flush, other
    /// stored blocks), and it ends byte-aligned itself, so that the next
    /// piece's deflate output can follow it as one stream. Returns the
    /// number of bytes written, or nil when they do not fit in `output`.
    static func store(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, ending: Ending) -> Int? {
        let blocks = max(ending == .finish ? 1 : 0, (input.count + storedBlockLimit - 1) / storedBlockLimit)
        guard input.count + 5 * blocks <= output.count else { return nil }
        var written = 0
        for block in 0..<blocks {
            let start = block * storedBlockLimit
            let count = min(storedBlockLimit, input.count - start)
            // BFINAL in bit 0, BTYPE 00 in bits 1-2, the rest of the byte padding.
            let final: UInt8 = ending == .finish && block == blocks - 1 ? 1 : 0
            for byte in [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)] {
                output[written] = byte
                written += 1
            }
            if count > 0 {
                output.baseAddress!.advanced(by: written).copyMemory(from: input.baseAddress!.advanced(by: start), byteCount: count)
            }
            written += count
        }
        return written
    }
}
