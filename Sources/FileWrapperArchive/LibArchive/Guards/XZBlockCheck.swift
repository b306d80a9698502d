/// Follows one xz stream as its bytes pass, from block header to block
/// header, without decoding it: each block's LZMA2 data is a run of chunks
/// whose headers give their sizes, so the next block header is found by
/// skipping them. Each block header's filters are held to the memory
/// limit (``LZMAMemory/xzBlock(header:check:)``). libarchive decodes an xz
/// member of a zip (method 95) with liblzma and no limit; a block declared
/// later in the stream may need more than the first.
///
/// The walk stops (with nothing to refuse) where liblzma would stop with an
/// error, at the stream's index, or when bytes are skipped.
final class XZBlockCheck {
    private enum State {
        case streamHeader
        case blockHeaderSize
        case blockHeader(size: Int)
        case chunkControl
        case chunkHeader(size: Int, control: UInt8)
        /// Bytes to pass over, then what comes next.
        case skip(Int64, then: Next)
        case done
    }

    private enum Next {
        case blockHeaderSize, chunkControl
    }

    private let budget: MemoryBudget
    /// The member the stream is in, for errors.
    private let member: String
    /// The offset of the next byte the walk needs.
    private var position: Int64
    private var state = State.streamHeader
    /// The bytes of the field being read.
    private var field: [UInt8] = []
    /// The stream's integrity check (its ID, and its size after each block).
    private var check: UInt8 = 0
    private var checkSize = 0
    private var blockStart: Int64 = 0

    /// A walk of the stream that begins at `start` in the input.
    init(start: Int64, member: String, budget: MemoryBudget) {
        position = start
        self.member = member
        self.budget = budget
    }

    var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// Follows the stream through `bytes`, the input's from `offset` on;
    /// the refusal of a block header whose filters need too much memory.
    func inspect(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> DeclaredSizeRefusal? {
        guard !isDone, position < offset + Int64(bytes.count) else { return nil }
        guard position >= offset else {
            state = .done  // bytes skipped: libarchive passed over the rest of the member
            return nil
        }
        var index = Int(position - offset)
        while index < bytes.count {
            if case .skip(let count, let next) = state {
                let passed = min(count, Int64(bytes.count - index))
                index += Int(passed)
                position += passed
                state = passed == count ? (next == .blockHeaderSize ? .blockHeaderSize : .chunkControl) : .skip(count - passed, then: next)
                continue
            }
            guard let size = fieldSize else { return nil }
            let taken = min(size - field.count, bytes.count - index)
            field += bytes[index..<(index + taken)]
            index += taken
            position += Int64(taken)
            if field.count == size, let refusal = finishField() { return refusal }
        }
        return nil
    }

    /// The size of the field being read; nil once the walk is done.
    private var fieldSize: Int? {
        switch state {
        case .streamHeader: 12
        case .blockHeaderSize, .chunkControl: 1
        case .blockHeader(let size): size
        case .chunkHeader(let size, _): size
        case .skip, .done: nil
        }
    }

    /// Acts on a field read whole.
    private func finishField() -> DeclaredSizeRefusal? {
        let bytes = field
        field = []
        switch state {
        case .streamHeader:
            guard bytes.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]), bytes[6] == 0, bytes[7] < 16 else {
                state = .done
                return nil
            }
            check = bytes[7]
            checkSize = [0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64][Int(check)]
            state = .blockHeaderSize
        case .blockHeaderSize:
            // 0 begins the index: the stream's blocks are over.
            guard bytes[0] != 0 else {
                state = .done
                return nil
            }
            blockStart = position - 1
            field = bytes
            state = .blockHeader(size: (Int(bytes[0]) + 1) * 4)
        case .blockHeader:
            guard let needed = LZMAMemory.xzBlock(header: bytes, check: check) else {
                state = .done
                return nil
            }
            guard budget.allows(needed) else {
                state = .done
                let error = budget.refusal("the zip member \"\(member)\" is compressed with xz, whose block at byte \(blockStart) "
                                           + "needs \(needed) bytes of memory to decode")
                return DeclaredSizeRefusal(error: error, offset: blockStart)
            }
            state = .chunkControl
        case .chunkControl:
            let control = bytes[0]
            switch control {
            case 0x00:
                // The end of the block's LZMA2 data; then padding to a multiple of 4, and the check.
                let padding = (4 - (position - blockStart) % 4) % 4
                state = .skip(padding + Int64(checkSize), then: .blockHeaderSize)
            case 0x01, 0x02:
                state = .chunkHeader(size: 2, control: control)
            case 0x80...0xFF:
                state = .chunkHeader(size: control >= 0xC0 ? 5 : 4, control: control)
            default:
                state = .done
            }
        case .chunkHeader(_, let control):
            // An uncompressed chunk gives its size; an LZMA chunk its unpacked, then packed size.
            let sizeField = control < 0x80 ? 0 : 2
            let size = Int64(bytes[sizeField]) << 8 | Int64(bytes[sizeField + 1])
            state = .skip(size + 1, then: .chunkControl)
        case .skip, .done:
            break
        }
        return nil
    }
}
