import CLZMA

/// An xz, lzma or lzip stream decoded by liblzma with the memory limit as
/// its `memlimit`: liblzma reads each header (every block of every
/// concatenated xz stream, the `.lzma` header, every lzip member) and
/// refuses (`LZMA_MEMLIMIT_ERROR`), before it allocates, a dictionary
/// that would take more. libarchive 3.6.2 decodes these streams with no
/// limit (`UINT64_MAX`), so a 26 MB xz stream that declares a 1 GiB
/// dictionary took 1.3 GB.
final class LZMADecoder: CompressionDecoder {
    enum Container: String {
        case xz, lzma, lzip
    }

    private let input: ArchiveReadSource
    private let container: Container
    private let budget: MemoryBudget
    private var stream = lzma_stream()
    /// Whether the input has ended, and whether the stream has.
    private var inputEnded = false
    private var finished = false
    /// Bytes of the input before the current block.
    private var consumedBefore: Int64 = 0
    private var blockCount = 0
    private(set) var error: ArchiveError?

    /// Decodes `input`, a stream in `container`, within `budget`.
    init(input: ArchiveReadSource, container: Container, budget: MemoryBudget) throws {
        self.input = input
        self.container = container
        self.budget = budget
        let limit = UInt64(max(budget.bytes, 1))
        let concatenated: UInt32 = 0x08  // LZMA_CONCATENATED, as libarchive decodes xz (and lzip, member after member)
        let status = switch container {
        case .xz: lzma_stream_decoder(&stream, limit, concatenated)
        case .lzma: lzma_alone_decoder(&stream, limit)
        case .lzip: lzma_lzip_decoder(&stream, limit, concatenated)
        }
        guard status == LZMA_OK else {
            throw ArchiveError(.libarchive, archive: input.name, message: "liblzma could not start decoding (\(status.rawValue))")
        }
    }

    deinit {
        lzma_end(&stream)
    }

    var archiveBytesRead: Int64 {
        consumedBefore + Int64(blockCount - stream.avail_in)
    }

    func rewound() -> (any CompressionDecoder)? {
        guard let input = input.rewound() else { return nil }
        return try? LZMADecoder(input: input, container: container, budget: budget)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard error == nil else { return -1 }
        stream.next_out = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.avail_out = buffer.count
        while stream.avail_out > 0, !finished {
            if stream.avail_in == 0, !inputEnded {
                guard let block = input.nextBlock() else {
                    error = input.error
                    return -1
                }
                consumedBefore += Int64(blockCount)
                blockCount = block.count
                inputEnded = block.isEmpty
                stream.next_in = block.baseAddress?.assumingMemoryBound(to: UInt8.self)
                stream.avail_in = block.count
            }
            switch lzma_code(&stream, inputEnded ? LZMA_FINISH : LZMA_RUN) {
            case LZMA_OK:
                continue
            case LZMA_STREAM_END:
                finished = true
            case LZMA_MEMLIMIT_ERROR:
                error = budget.refusal("decoding the \(container.rawValue) stream needs \(lzma_memusage(&stream)) bytes of memory for its dictionary")
                return -1
            case let status:
                error = ArchiveError(.corrupt, archive: input.name, message: "\(container.rawValue): \(Self.describe(status))")
                return -1
            }
        }
        return buffer.count - stream.avail_out
    }

    /// liblzma's failure in words, as libarchive words it.
    private static func describe(_ status: lzma_ret) -> String {
        switch status {
        case LZMA_MEM_ERROR: "Lzma library error: Cannot allocate memory"
        case LZMA_FORMAT_ERROR: "Lzma library error: format not recognized"
        case LZMA_OPTIONS_ERROR: "Lzma library error: Invalid options"
        case LZMA_DATA_ERROR: "Lzma library error: Corrupted input data"
        case LZMA_BUF_ERROR: "Lzma library error: Truncated input data"
        default: "Lzma decompression failed: Unknown error \(status.rawValue)"
        }
    }
}
