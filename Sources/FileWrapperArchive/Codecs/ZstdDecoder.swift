import CZstd

/// A zstd stream (frames one after another, skippable ones skipped)
/// decoded by libzstd with the largest window that the memory limit holds
/// (`ZSTD_d_windowLogMax`: a power of two): libzstd reads each frame's
/// header and refuses, before it allocates, a larger window. libarchive
/// 3.6.2 leaves zstd its default of 128 MiB, whatever the limit.
final class ZstdDecoder: CompressionDecoder {
    private let input: ArchiveReadSource
    private let budget: MemoryBudget
    private let context: OpaquePointer
    /// The largest window allowed, as a power of two.
    private let windowLog: Int
    private var block = UnsafeRawBufferPointer(start: nil, count: 0)
    private var used = 0
    private var inputEnded = false
    /// Whether a frame has begun and not ended.
    private var inFrame = false
    private var consumedBefore: Int64 = 0
    private(set) var error: ArchiveError?

    /// Decodes `input` within `budget`.
    init(input: ArchiveReadSource, budget: MemoryBudget) throws {
        self.input = input
        self.budget = budget
        windowLog = min(31, max(10, Int.bitWidth - 1 - max(budget.bytes, 1).leadingZeroBitCount))
        guard let context = ZSTD_createDCtx() else {
            throw ArchiveError(.libarchive, archive: input.name, message: "zstd could not allocate a decoder")
        }
        self.context = context
        ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, CInt(windowLog))
    }

    deinit {
        ZSTD_freeDCtx(context)
    }

    var archiveBytesRead: Int64 {
        consumedBefore + Int64(used)
    }

    func rewound() -> (any CompressionDecoder)? {
        guard let input = input.rewound() else { return nil }
        return try? ZstdDecoder(input: input, budget: budget)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard error == nil else { return -1 }
        var output = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
        while output.pos < output.size {
            if used == block.count, !inputEnded {
                guard let next = input.nextBlock() else {
                    error = input.error
                    return -1
                }
                consumedBefore += Int64(block.count)
                (block, used, inputEnded) = (next, 0, next.isEmpty)
            }
            if used == block.count, inputEnded {
                guard !inFrame else {
                    error = ArchiveError(.corrupt, archive: input.name, message: "Truncated zstd input")
                    return -1
                }
                break
            }
            var source = ZSTD_inBuffer(src: block.baseAddress, size: block.count, pos: used)
            let status = ZSTD_decompressStream(context, &output, &source)
            used = source.pos
            if ZSTD_isError(status) != 0 {
                error = ZSTD_getErrorCode(status) == ZSTD_error_frameParameter_windowTooLarge
                    ? budget.refusal("decoding the zstd stream needs more than \(UInt64(1) << windowLog) bytes of memory for its window")
                    : ArchiveError(.corrupt, archive: input.name, message: "Zstd decompression failed: \(String(cString: ZSTD_getErrorName(status)))")
                return -1
            }
            // Above 0 while the frame goes on.
            inFrame = status != 0
        }
        return output.pos
    }
}
