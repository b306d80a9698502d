import CZlib

/// One zlib inflate stream reading raw deflate (no zlib or gzip wrapper, as
/// zip stores it), reset and reused for every piece it expands rather than
/// set up again each time.
final class RawInflater {
    private let stream: UnsafeMutablePointer<z_stream>

    /// How expanding one piece went.
    enum Outcome: Equatable {
        /// The stream ended with the input, after this many bytes of output.
        case expanded(Int)
        /// The output is full and the stream goes on.
        case tooLong
        /// The input ran out before the stream ended.
        case cutShort
        /// The stream ended this many bytes before the input did.
        case endsEarly(Int)
        /// The input is not deflate data.
        case damaged
        /// zlib could not allocate its window.
        case outOfMemory
    }

    /// A stream; nil when zlib cannot allocate one.
    init?() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits -15: raw deflate, any window up to 32 KiB.
        guard inflateInit2_(stream, -15, ZLIB_VERSION, CInt(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Expands `input`, which must be exactly one raw deflate stream, into
    /// `output`, in one call.
    func expand(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Outcome {
        guard inflateReset(stream) == Z_OK else { preconditionFailure("inflateReset on a broken stream") }
        stream.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        switch inflate(stream, Z_FINISH) {
        case Z_STREAM_END:
            let left = Int(stream.pointee.avail_in)
            return left > 0 ? .endsEarly(left) : .expanded(output.count - Int(stream.pointee.avail_out))
        case Z_DATA_ERROR, Z_NEED_DICT:
            return .damaged
        case Z_MEM_ERROR:
            return .outOfMemory
        default:
            // Z_BUF_ERROR or Z_OK: no progress possible without more room or more input.
            return stream.pointee.avail_out == 0 ? .tooLong : .cutShort
        }
    }

    /// How far one ``step(_:into:)`` went.
    enum Step: Equatable {
        /// Input bytes consumed, output bytes produced, and whether the stream ended.
        case progress(consumed: Int, produced: Int, ended: Bool)
        /// The input is not deflate data.
        case damaged
        /// zlib could not allocate its window.
        case outOfMemory
    }

    /// Expands from `input` into `output` as far as both allow, for a
    /// stream read a piece at a time (a zip member read lazily) by a new
    /// inflater; the stream goes on with the next call until it ends.
    func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Step {
        stream.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let status = inflate(stream, Z_NO_FLUSH)
        let consumed = input.count - Int(stream.pointee.avail_in)
        let produced = output.count - Int(stream.pointee.avail_out)
        switch status {
        case Z_STREAM_END: return .progress(consumed: consumed, produced: produced, ended: true)
        case Z_OK, Z_BUF_ERROR: return .progress(consumed: consumed, produced: produced, ended: false)
        case Z_MEM_ERROR: return .outOfMemory
        default: return .damaged
        }
    }
}
