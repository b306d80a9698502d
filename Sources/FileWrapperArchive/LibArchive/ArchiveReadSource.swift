import CArchive
import FileWrapperKit
import Foundation
import Glibc

/// The bytes a read handle decodes, given to libarchive through its read,
/// skip and seek callbacks: a copy of bytes in memory, or a descriptor read
/// with `pread` from where it stood when the source was made (so a reader
/// can look at the first bytes before libarchive does, and several readers
/// can share one descriptor), or with `read` when it cannot seek (a pipe),
/// or the bytes a compression stream decodes to (``DeclaredSizes``).
final class ArchiveReadSource {
    private enum Input {
        case memory(Memory)
        /// A descriptor that can seek: its start offset and its size from there.
        case file(CInt, start: Int64, size: Int64)
        /// A descriptor that cannot seek.
        case stream(CInt)
        /// What a compression stream decodes to, read in order like a stream.
        case decoded(any CompressionDecoder)
    }

    private let input: Input
    /// The position libarchive reads from next, counted from the start.
    private var position: Int64 = 0
    /// Bytes that were read from a stream to look at them, not yet given to libarchive.
    private var pending: [UInt8] = []
    /// Where descriptor reads land; libarchive keeps a block until the next read.
    private let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    /// Where the bytes in `block` lie, counted from the start, and how many there are.
    private var blockOffset: Int64 = 0
    private var blockCount = 0
    /// The failure of a read, for the error that libarchive's status stands for.
    private(set) var error: ArchiveError?
    /// The input's first bytes (up to ``ArchiveReadFormats/headLength``).
    private(set) var head: [UInt8] = []
    let name: String
    /// What looks at the bytes before libarchive gets them, for declared
    /// sizes over the memory limit (``DeclaredSizes``).
    var checks: [any DeclaredSizeCheck] = []
    /// The names of a 7z's files as its header stores them, in order
    /// (``SevenZipHeaderCheck``), which libarchive gives in NFC.
    var sevenZipNames: [[UInt8]]?
    /// A check's refusal of bytes not yet given to libarchive, for its next read.
    private var refusal: ArchiveError?
    /// Whether the bytes of a stream given to libarchive are kept in
    /// ``consumed``: while formats bid on it, so that a stream none takes
    /// can still be read whole, as a flat file.
    var recordsConsumed = false
    /// The bytes of a stream given to libarchive while ``recordsConsumed``.
    private(set) var consumed: [UInt8] = []

    /// A copy of bytes in memory, shared by the sources that read it.
    private final class Memory {
        private let allocation: UnsafeMutableRawBufferPointer
        let bytes: UnsafeRawBufferPointer
        init(_ data: Data) {
            allocation = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
            data.copyBytes(to: allocation)
            bytes = UnsafeRawBufferPointer(rebasing: allocation[..<data.count])
        }
        deinit { allocation.deallocate() }
    }

    /// Reads a copy of `data`.
    convenience init(data: Data, name: String) {
        self.init(.memory(Memory(data)), name: name)
    }

    /// Reads the open descriptor `fd` from its current offset; the caller
    /// keeps it open while the source is used, and closes it.
    convenience init(fd: CInt, name: String) {
        var status = stat()
        let start = Syscall.invoke(.lseek) { lseek(fd, 0, SEEK_CUR) }
        if Syscall.invoke(.fstat, { fstat(fd, &status) }) == 0, status.st_mode & S_IFMT == S_IFREG, start >= 0 {
            self.init(.file(fd, start: Int64(start), size: max(0, Int64(status.st_size) - Int64(start))), name: name)
        } else {
            self.init(.stream(fd), name: name)
        }
    }

    /// Reads what `decoder` decodes.
    convenience init(decoding decoder: any CompressionDecoder, name: String) {
        self.init(.decoded(decoder), name: name)
    }

    /// Reads `input`, looking at its first bytes; a failure to read them is
    /// kept in ``error`` and comes back when libarchive reads.
    private init(_ input: Input, name: String) {
        self.input = input
        self.name = name
        let length = ArchiveReadFormats.headLength
        var bytes = [UInt8](repeating: 0, count: length)
        var count = 0
        while count < length {
            let got = bytes.withUnsafeMutableBytes { self.readInput(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...]), at: Int64(count)) }
            guard got > 0 else { break }
            count += got
        }
        head = Array(bytes[..<count])
        if isSequential { pending = head }
    }

    deinit {
        block.deallocate()
    }

    /// A source over the same input from its start, for a second reader;
    /// `nil` for a stream, whose bytes are gone once read.
    func rewound() -> ArchiveReadSource? {
        switch input {
        case .stream: nil
        case .decoded(let decoder): decoder.rewound().map { ArchiveReadSource(.decoded($0), name: name) }
        default: ArchiveReadSource(input, name: name)
        }
    }

    /// Whether the input is read in order only, without seeking: a stream,
    /// or what a compression decodes to.
    var isSequential: Bool {
        switch input {
        case .stream, .decoded: true
        case .memory, .file: false
        }
    }

    /// For decoded bytes, how many bytes of the archive itself the decoder
    /// has read (libarchive counts only the decoded bytes it is given); nil
    /// otherwise.
    var decodedArchiveBytesRead: Int64? {
        if case .decoded(let decoder) = input { return decoder.archiveBytesRead }
        return nil
    }

    /// The next bytes, as libarchive's read callback gets them, for a
    /// decoder that reads this source: empty at the end, nil on failure
    /// (kept in ``error``).
    func nextBlock() -> UnsafeRawBufferPointer? {
        var pointer: UnsafeRawPointer?
        let count = next(&pointer)
        guard count >= 0 else { return nil }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }

    /// Opens `archive` on this source, which must live as long as `archive`.
    func open(_ archive: OpaquePointer) -> CInt {
        let context = Unmanaged.passUnretained(self).toOpaque()
        archive_read_set_callback_data(archive, context)
        archive_read_set_read_callback(archive) { _, context, buffer in
            let source = Unmanaged<ArchiveReadSource>.fromOpaque(context!).takeUnretainedValue()
            return source.next(buffer!)
        }
        if !isSequential {
            archive_read_set_skip_callback(archive) { _, context, request in
                Unmanaged<ArchiveReadSource>.fromOpaque(context!).takeUnretainedValue().skip(request)
            }
            archive_read_set_seek_callback(archive) { _, context, offset, whence in
                Unmanaged<ArchiveReadSource>.fromOpaque(context!).takeUnretainedValue().seek(offset, whence)
            }
        }
        return archive_read_open1(archive)
    }

    /// The descriptor of a file that can seek, and the offset in it where
    /// the archive starts; nil for bytes in memory and for a stream.
    var file: (fd: CInt, start: Int64)? {
        if case .file(let fd, let start, _) = input { return (fd, start) }
        return nil
    }

    /// Copies the `buffer.count` bytes at `offset` from the start, reading
    /// beside libarchive: from the block it was given last when they are
    /// there (the data after a header usually is), else from the file or
    /// memory. False when they cannot all be read, a stream's in particular;
    /// any error is left for libarchive to meet.
    func copyBytes(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard offset >= 0, !isSequential else { return false }
        if offset >= blockOffset, offset - blockOffset + Int64(buffer.count) <= Int64(blockCount) {
            let start = Int(offset - blockOffset)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: block[start..<(start + buffer.count)]))
            return true
        }
        var count = 0
        while count < buffer.count {
            let got = readOnce(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]), at: offset + Int64(count))
            guard got > 0 else { return false }
            count += got
        }
        return true
    }

    /// The input's size from the start; nil for a stream.
    var size: Int64? {
        switch input {
        case .memory(let memory): Int64(memory.bytes.count)
        case .file(_, _, let size): size
        case .stream, .decoded: nil
        }
    }

    /// The next bytes for libarchive: 0 at the end, -1 on failure.
    private func next(_ buffer: UnsafeMutablePointer<UnsafeRawPointer?>) -> Int {
        if let refusal {
            error = refusal
            return -1
        }
        if case .memory(let memory) = input {
            // All the rest at once; a block at a time when checks look at
            // the bytes, so that they see what libarchive reads after each
            // seek or skip rather than the whole rest again.
            let bytes = memory.bytes
            let offset = Int(min(position, Int64(bytes.count)))
            let end = checks.isEmpty ? bytes.count : min(bytes.count, offset + block.count)
            return deliver(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), to: buffer)
        }
        if !pending.isEmpty {
            let count = pending.count
            block.copyBytes(from: pending)
            pending = []
            return deliver(UnsafeRawBufferPointer(rebasing: block[..<count]), to: buffer)
        }
        let count = readInput(into: block, at: position)
        guard count >= 0 else { return -1 }
        (blockOffset, blockCount) = (position, count)
        return deliver(UnsafeRawBufferPointer(rebasing: block[..<count]), to: buffer)
    }

    /// Gives libarchive `bytes`, the input's from ``position`` on, once the
    /// ``checks`` have looked at them: when one refuses a declared size,
    /// only the bytes before the header that declares it, and the refusal
    /// at the next read (at once if the header began in earlier bytes).
    private func deliver(_ bytes: UnsafeRawBufferPointer, to buffer: UnsafeMutablePointer<UnsafeRawPointer?>) -> Int {
        var count = bytes.count
        for check in checks where count > 0 {
            guard let refused = check.inspect(UnsafeRawBufferPointer(rebasing: bytes[..<count]), at: position) else { continue }
            guard refused.offset > position else {
                error = refused.error
                return -1
            }
            refusal = refused.error
            count = Int(refused.offset - position)
        }
        buffer.pointee = bytes.baseAddress
        position += Int64(count)
        if recordsConsumed, case .stream = input { consumed += UnsafeRawBufferPointer(rebasing: bytes[..<count]) }
        return count
    }

    /// The descriptor of a stream (an input that cannot seek), to read on
    /// from after the bytes libarchive or ``head`` took; nil otherwise.
    var stream: CInt? {
        if case .stream(let fd) = input { return fd }
        return nil
    }

    /// Calls `body` with every byte of the input from its start, in
    /// blocks: a file's or memory's read again, a stream's ``consumed``
    /// bytes (those libarchive took while recording; the ``head`` when it
    /// has read nothing) and then the rest of it. For an input that no
    /// format took, read as a flat file.
    func forEachBlockFromStart(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        if case .decoded = input { preconditionFailure("a decoded input is an archive's") }
        if case .stream = input {
            try (consumed.isEmpty && position == 0 ? pending : consumed).withUnsafeBytes(body)
        }
        var offset: Int64 = 0
        while true {
            let count = readInput(into: block, at: offset)
            if count < 0, let error { throw error }
            if count <= 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: block[..<count]))
            offset += Int64(count)
        }
    }

    /// Reads descriptor bytes at `offset` from the start (`pread`), or the
    /// next bytes of a stream (`read`) or a decoder; -1 after recording the error.
    private func readInput(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        let count = readOnce(into: buffer, at: offset)
        if count < 0 {
            if case .decoded(let decoder) = input {
                error = decoder.error
            } else {
                error = ArchiveError(.io, archive: name, message: "cannot read: \(String(cString: strerror(errno)))")
            }
        }
        return count
    }

    /// Reads bytes at `offset` from the start, or a stream's next bytes,
    /// retrying `EINTR`: how many (0 at the end), or -1 with `errno` set.
    private func readOnce(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        while true {
            let count: Int
            switch input {
            case .memory(let memory):
                let bytes = memory.bytes
                let start = Int(min(offset, Int64(bytes.count)))
                let count = min(buffer.count, bytes.count - start)
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)]))
                return count
            case .file(let fd, let start, _):
                count = Syscall.invoke(.pread) { pread(fd, buffer.baseAddress, buffer.count, off_t(start + offset)) }
            case .stream(let fd):
                count = Syscall.invoke(.read) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            case .decoded(let decoder):
                return decoder.read(into: buffer)
            }
            if count < 0, errno == EINTR { continue }
            return count
        }
    }

    /// Moves forward by up to `request` bytes, no further than the end.
    private func skip(_ request: Int64) -> Int64 {
        guard let size, request > 0 else { return 0 }
        let skipped = max(0, min(request, size - position))
        position += skipped
        return skipped
    }

    /// Moves to `offset` from the start, the current position or the end.
    private func seek(_ offset: Int64, _ whence: CInt) -> Int64 {
        guard let size else { return Int64(ARCHIVE_FATAL) }
        let base: Int64 = switch whence {
        case SEEK_SET: 0
        case SEEK_CUR: position
        case SEEK_END: size
        default: -1
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard base >= 0, !overflow, target >= 0 else { return Int64(ARCHIVE_FATAL) }
        position = target
        return target
    }
}
