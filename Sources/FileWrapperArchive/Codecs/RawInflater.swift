import CInflate

/// One raw deflate stream (no zlib or gzip wrapper, as zip and gzip store
/// it), reset and reused for every piece it expands rather than set up
/// again each time: the one inflater of the library, ISA-L's where the
/// build found libisal-dev, zlib's otherwise (``library``), the same bytes
/// out either way.
final class RawInflater {
    private let stream: OpaquePointer

    /// The library that inflates and its version, as `--version` says it:
    /// "ISA-L 2.30.0" or "zlib 1.2.13".
    static let library = String(cString: cinflate_library())

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
        /// The inflater could not allocate memory.
        case outOfMemory
    }

    /// A stream; nil when it cannot be allocated.
    init?() {
        guard let stream = cinflate_new() else { return nil }
        self.stream = stream
    }

    deinit {
        cinflate_free(stream)
    }

    /// Expands `input`, which must be exactly one raw deflate stream, into
    /// `output`, in one call.
    func expand(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Outcome {
        cinflate_reset(stream)
        var (consumed, produced) = (input.count, output.count)
        switch cinflate_step(stream, input.baseAddress, &consumed, output.baseAddress, &produced) {
        case CINFLATE_END:
            // One call from a reset: nothing read in an earlier one.
            let left = input.count - consumed
            return left > 0 ? .endsEarly(left) : .expanded(produced)
        case CINFLATE_PROGRESS:
            // No further progress possible without more room or more input.
            return produced == output.count ? .tooLong : .cutShort
        case CINFLATE_NO_MEMORY:
            return .outOfMemory
        default:
            return .damaged
        }
    }

    /// How far one ``step(_:into:)`` went.
    enum Step: Equatable {
        /// Input bytes consumed, output bytes produced, and whether the
        /// stream ended; when it did, ``bytesReadPastEnd()`` come before
        /// the input not consumed.
        case progress(consumed: Int, produced: Int, ended: Bool)
        /// The input is not deflate data.
        case damaged
        /// The inflater could not allocate memory.
        case outOfMemory
    }

    /// Expands from `input` into `output` as far as both allow, for a
    /// stream read a piece at a time (a zip member read lazily, a gzip
    /// member) after a ``reset()`` or by a new inflater; the stream goes on
    /// with the next call until it ends.
    func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Step {
        var (consumed, produced) = (input.count, output.count)
        switch cinflate_step(stream, input.baseAddress, &consumed, output.baseAddress, &produced) {
        case CINFLATE_END: return .progress(consumed: consumed, produced: produced, ended: true)
        case CINFLATE_PROGRESS: return .progress(consumed: consumed, produced: produced, ended: false)
        case CINFLATE_NO_MEMORY: return .outOfMemory
        default: return .damaged
        }
    }

    /// Why a stream read whole (``inflate(compressedSize:input:output:read:deliver:)``) failed.
    enum Failure: Error, Equatable {
        /// The compressed bytes end before the deflate stream does.
        case cutShort
        /// The compressed bytes are not a valid deflate stream.
        case damaged
        /// The deflate stream ends this many bytes before the compressed bytes do.
        case endsEarly(Int64)
        /// The inflater could not allocate memory.
        case outOfMemory

        /// What is wrong, said of a member's data for an error.
        var message: String {
            switch self {
            case .cutShort: "the compressed data ends before its deflate stream does"
            case .damaged: "the compressed data is damaged (not a valid deflate stream)"
            case .endsEarly(let left): "the deflate stream ends \(left) bytes before the compressed data does"
            case .outOfMemory: "could not allocate memory to inflate it"
            }
        }
    }

    /// Inflates, from a reset, the one raw deflate stream that is exactly
    /// `compressedSize` bytes (a zip member's data), streaming: `read`
    /// fills each piece of `input` with the compressed bytes at an offset
    /// from their start, and `deliver` gets `output` each time it holds
    /// bytes. Memory is the two buffers, whatever the sizes.
    func inflate<E: Error>(
        compressedSize: Int64, input: UnsafeMutableRawBufferPointer, output: UnsafeMutableRawBufferPointer,
        read: (UnsafeMutableRawBufferPointer, Int64) throws(E) -> Void, deliver: (UnsafeRawBufferPointer) throws(E) -> Void,
        failure: (Failure) -> E
    ) throws(E) {
        reset()
        // Compressed bytes read so far; the piece of them not yet consumed.
        var consumed: Int64 = 0
        var (pieceStart, pieceCount) = (0, 0)
        while true {
            if pieceCount == 0, consumed < compressedSize {
                let count = Int(min(Int64(input.count), compressedSize - consumed))
                try read(UnsafeMutableRawBufferPointer(rebasing: input[..<count]), consumed)
                consumed += Int64(count)
                (pieceStart, pieceCount) = (0, count)
            }
            switch step(UnsafeRawBufferPointer(rebasing: input[pieceStart..<(pieceStart + pieceCount)]), into: output) {
            case .progress(let took, let made, let ended):
                (pieceStart, pieceCount) = (pieceStart + took, pieceCount - took)
                if made > 0 { try deliver(UnsafeRawBufferPointer(rebasing: output[..<made])) }
                if ended {
                    let left = Int64(bytesReadPastEnd().count + pieceCount) + compressedSize - consumed
                    guard left == 0 else { throw failure(.endsEarly(left)) }
                    return
                }
                // With room, the inflater always moves unless the input ran out or is not deflate.
                if took == 0, made == 0 { throw failure(pieceCount == 0 ? .cutShort : .damaged) }
            case .damaged:
                throw failure(.damaged)
            case .outOfMemory:
                throw failure(.outOfMemory)
            }
        }
    }

    /// Makes the inflater ready for the next stream.
    func reset() {
        cinflate_reset(stream)
    }

    /// After a ``step(_:into:)`` that ended the stream: the bytes of
    /// earlier steps' input that lie after the stream's end (ISA-L reads up
    /// to 8 bytes ahead, and gives back only those of the last step).
    func bytesReadPastEnd() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 8)
        let count = bytes.withUnsafeMutableBufferPointer { cinflate_overread(stream, $0.baseAddress!) }
        return Array(bytes[..<count])
    }
}
