import CCRC32
import CZlib

/// A zip's unit of work for ``CompressionWorkers``: an input buffer holding one or more
/// pieces, each checksummed (CRC-32) and, as asked, deflated into the output
/// buffer. The buffers are allocated once and the job reused, so memory is
/// bounded by the number of jobs in flight.
///
/// A piece is either a whole stream (a small file, deflated on its own) or
/// a chunk of a longer stream, primed with the bytes that precede it in the
/// input buffer and ended with a sync flush (the stream's last chunk with
/// its end), so that the chunks' outputs, concatenated in order, make one
/// deflate stream, as pigz does. A chunk that would not shrink (judged by
/// ``StoreJudge/storesBetter(chunk:)``) is copied as stored blocks instead,
/// which keep the stream whole and byte-aligned: in a file of random bytes
/// and text only the text costs deflate's time. What a job produces
/// depends only on its input, never on which worker ran it or when.
final class DeflateJob: CompressionJob, @unchecked Sendable {
    /// What a worker keeps for the jobs it runs: a deflate stream at the
    /// writer's level, and a judge of chunks with a level-1 stream.
    struct Deflaters {
        let deflater: RawDeflater
        let judge: StoreJudge
    }

    enum Work {
        /// The CRC-32 only: the piece is stored.
        case checksum
        /// A whole stream, kept only when it is smaller than the piece.
        case deflate
        /// A chunk of a stream, primed with the `dictionary` bytes just
        /// before it in the input, or stored blocks when it would not
        /// shrink; `last` ends the stream.
        case deflateChunk(dictionary: Int, last: Bool)
    }

    struct Piece {
        /// Where the piece is in ``input``.
        var input: Range<Int>
        var work: Work
        /// Results: the piece's CRC-32, and where its deflated bytes are in
        /// ``output`` (nil when it was not deflated, or did not shrink).
        var checksum: UInt32 = 0
        var output: Range<Int>?
    }

    let input: UnsafeMutableRawBufferPointer
    let output: UnsafeMutableRawBufferPointer
    var pieces: [Piece] = []
    /// Set by a worker when zlib could not compress a chunk into the space left.
    var failure: String?
    /// Set under the workers' lock.
    var isDone = false

    /// A job whose input holds `inputCapacity` bytes, and whose output holds
    /// a chunk of that size deflated or stored (with room for the flush
    /// markers, or the stored blocks' headers).
    init(inputCapacity: Int, chunkSize: Int) {
        input = .allocate(byteCount: inputCapacity, alignment: 64)
        output = .allocate(byteCount: chunkSize + chunkSize / 64 + 1024, alignment: 64)
    }

    deinit {
        input.deallocate()
        output.deallocate()
    }

    /// Ready to be filled again.
    func reset() {
        pieces.removeAll(keepingCapacity: true)
        failure = nil
    }

    /// Runs every piece; `deflaters` is nil when no piece deflates (the
    /// writer's workers then have none).
    func run(with deflaters: Deflaters?) {
        var used = 0
        for index in pieces.indices {
            let piece = pieces[index]
            let bytes = UnsafeRawBufferPointer(rebasing: input[piece.input])
            pieces[index].checksum = Self.checksum(bytes)
            switch piece.work {
            case .checksum:
                break
            case .deflate:
                // Room for one byte less than the piece: what does not fit did not shrink.
                let room = UnsafeMutableRawBufferPointer(rebasing: output[used..<min(output.count, used + bytes.count - 1)])
                if let count = deflaters!.deflater.compress(bytes, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), into: room, ending: .finish) {
                    pieces[index].output = used..<used + count
                    used += count
                }
            case .deflateChunk(let dictionary, let last):
                let primer = UnsafeRawBufferPointer(rebasing: input[piece.input.lowerBound - dictionary..<piece.input.lowerBound])
                let room = UnsafeMutableRawBufferPointer(rebasing: output[used...])
                let ending: RawDeflater.Ending = last ? .finish : .syncFlush
                let stored = deflaters!.judge.storesBetter(chunk: bytes)
                guard let count = stored
                    ? RawDeflater.store(bytes, into: room, ending: ending)
                    : deflaters!.deflater.compress(bytes, dictionary: primer, into: room, ending: ending)
                else {
                    failure = stored
                        ? "a chunk of \(bytes.count) bytes did not fit in \(room.count) bytes as stored blocks"
                        : "zlib: a chunk of \(bytes.count) bytes did not fit in \(room.count) bytes once deflated"
                    return
                }
                pieces[index].output = used..<used + count
                used += count
            }
        }
    }

    /// The CRC-32 of `bytes`.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        ccrc32_update(0, bytes.baseAddress, bytes.count)
    }
}
