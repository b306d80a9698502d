import CZstd
import Foundation

/// Compresses a stream of bytes into one zstd frame on every core, passing
/// the compressed bytes on to `output` as they come.
///
/// libarchive's zstd filter compresses on one core, or, with its `threads`
/// option, with zstd's default 8 MiB jobs, which at level 3 took bsdtar to
/// 57–73 MiB of memory. Here the jobs are 640 KiB, which keeps the
/// compressor near 8 MiB at level 3 and the archive within 0.1 % of the
/// single-threaded size. (zstd's smallest job, 512 KiB, took the two
/// workers of this 2-core machine to 1.2 cores: packing 1 GiB of w2 was
/// 25 % slower. 1 MiB jobs cost 2 MiB more memory.) There is always at
/// least one worker: zstd's output then does not depend on the number of
/// workers, so the same tree gives the same bytes on any machine.
/// The frame carries a checksum of its contents, as the zstd tool writes.
final class ZstdCompressor {
    private let context: OpaquePointer
    private let output: (UnsafeRawBufferPointer) throws -> Void
    private let buffer: UnsafeMutableRawBufferPointer
    /// The archive's name for errors.
    private let name: String

    static let defaultLevel = 3
    static let jobSize = 640 << 10
    /// The most input one call takes: zstd's recommended input size.
    static let pieceSize = ZSTD_CStreamInSize()

    init(level: Int?, name: String, output: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let context = ZSTD_createCCtx() else {
            throw ArchiveError(.libarchive, archive: name, message: "zstd could not allocate a compressor")
        }
        self.context = context
        self.output = output
        self.name = name
        buffer = .allocate(byteCount: ZSTD_CStreamOutSize(), alignment: 16)
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        try set(ZSTD_c_compressionLevel, level ?? Self.defaultLevel)
        try set(ZSTD_c_checksumFlag, 1)
        try set(ZSTD_c_nbWorkers, workers)
        try set(ZSTD_c_jobSize, Self.jobSize)
    }

    deinit {
        ZSTD_freeCCtx(context)
        buffer.deallocate()
    }

    private func set(_ parameter: ZSTD_cParameter, _ value: Int) throws {
        try check(ZSTD_CCtx_setParameter(context, parameter, CInt(value)))
    }

    /// Compresses `bytes`; what zstd has finished goes to the output.
    ///
    /// zstd takes at most ``pieceSize`` bytes a call: each call passes on
    /// at most one output buffer, so finished jobs are passed on as fast as
    /// input comes. Given 256 KiB a call, zstd held finished jobs' output
    /// buffers (640 KiB each) until their turn: 11.1 MiB at its peak
    /// packing w3, against 7.9 MiB.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, Self.pieceSize)
            var input = ZSTD_inBuffer(src: bytes.baseAddress! + offset, size: count, pos: 0)
            while input.pos < input.size {
                try step(&input, ZSTD_e_continue)
            }
            offset += count
        }
    }

    /// Ends the frame and passes on its last bytes.
    func finish() throws {
        var input = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        while try step(&input, ZSTD_e_end) > 0 {}
    }

    /// One call of the compressor; returns what zstd says is left to flush.
    @discardableResult
    private func step(_ input: inout ZSTD_inBuffer, _ directive: ZSTD_EndDirective) throws -> Int {
        var out = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
        let remaining = ZSTD_compressStream2(context, &out, &input, directive)
        try check(remaining)
        if out.pos > 0 {
            try output(UnsafeRawBufferPointer(rebasing: buffer[..<out.pos]))
        }
        return remaining
    }

    private func check(_ result: Int) throws {
        guard ZSTD_isError(result) != 0 else { return }
        let message = String(cString: ZSTD_getErrorName(result))
        throw ArchiveError(.libarchive, archive: name, message: "zstd: \(message)")
    }
}
