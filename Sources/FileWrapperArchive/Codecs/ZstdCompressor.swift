import CZstd
import Foundation

/// Compresses a stream of bytes into zstd on every core, as pzstd does: the
/// stream is cut into chunks of ``chunkSize``, each compressed by a worker
/// into a frame of its own, and the frames are passed on to `output` in
/// order. zstd readers (the zstd tool, libarchive, GNU tar through zstd)
/// read consecutive frames as one stream. Each frame carries a checksum of
/// its contents, as the zstd tool writes.
///
/// zstd's own threads (`ZSTD_c_nbWorkers`) hand a job to a worker only
/// when one is idle and only while the caller is inside zstd, and the
/// caller waits for the oldest job's output, in order: packing w2, each of
/// the two workers was busy 63 % of the time. Here chunks queue for the
/// workers, so they stay busy while this thread reads and writes. A chunk
/// starts without the history of the one before, so the archive is larger
/// than one frame's: by 0.2 % for w2's large files, 1.3 % for w1's 20,000
/// small text files. Its bytes depend only on the input, never on the
/// number of workers.
///
/// A stream of at most one chunk is compressed on the calling thread, with
/// no thread started.
final class ZstdCompressor {
    static let defaultLevel = 3
    /// Each frame's input. With ``maxJobsPerWorker`` this bounds memory:
    /// a job holds its chunk and room for it compressed, 1.25 MiB.
    static let chunkSize = 640 << 10
    /// Jobs a worker may have in flight, queued or done and not yet passed on.
    static let maxJobsPerWorker = 2
    /// The most workers, whatever the number of cores: each costs a
    /// context (about 1 MiB at level 3) and two jobs.
    static let maxWorkers = 8

    private let level: Int
    /// The archive's name for errors.
    private let name: String
    private let output: (UnsafeRawBufferPointer) throws -> Void
    private let workerCount: Int
    /// Compresses a stream of one chunk, here.
    private let context: ZstdContext
    /// Started when the first chunk is full.
    private var workers: CompressionWorkers<ZstdJob>?
    /// Jobs handed to the workers, oldest first.
    private var inFlight: [ZstdJob] = []
    private var spareJobs: [ZstdJob] = []
    /// Jobs allocated so far, the one being filled included.
    private var jobsMade = 1
    /// The chunk being filled.
    private var filling = ZstdJob(chunkSize: chunkSize)

    init(level: Int?, name: String, output: @escaping (UnsafeRawBufferPointer) throws -> Void) throws {
        self.level = level ?? Self.defaultLevel
        self.name = name
        self.output = output
        workerCount = min(max(1, ProcessInfo.processInfo.activeProcessorCount), Self.maxWorkers)
        context = try ZstdContext(level: self.level, name: name)
    }

    deinit {
        workers?.stop()
    }

    /// Takes `bytes`; full chunks go to the workers, and frames that are
    /// done go to the output.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, filling.input.count - filling.filled)
            UnsafeMutableRawBufferPointer(rebasing: filling.input[filling.filled..<filling.filled + count])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            filling.filled += count
            offset += count
            if filling.filled == filling.input.count {
                try submitFilling()
            }
        }
    }

    /// Compresses what is left and passes on every frame.
    func finish() throws {
        guard let workers else {
            // One chunk at most (an empty stream is one empty frame).
            filling.run(with: context)
            try emit(filling)
            return
        }
        if filling.filled > 0 {
            try submitFilling()
        }
        for job in inFlight {
            workers.wait(for: job)
            try emit(job)
        }
        inFlight.removeAll()
        workers.stop()
    }

    /// Hands the full chunk to the workers, passes on the frames done at
    /// the front of the line, and takes a chunk to fill: a spare one, a new
    /// one while fewer than the most exist, or else the oldest once done.
    private func submitFilling() throws {
        let workers = try startedWorkers()
        workers.submit(filling)
        inFlight.append(filling)
        while let first = inFlight.first, workers.isDone(first) {
            try emit(inFlight.removeFirst())
        }
        if let spare = spareJobs.popLast() {
            filling = spare
        } else if jobsMade < workerCount * Self.maxJobsPerWorker + 1 {
            jobsMade += 1
            filling = ZstdJob(chunkSize: Self.chunkSize)
        } else {
            let oldest = inFlight.removeFirst()
            workers.wait(for: oldest)
            try emit(oldest)
            filling = spareJobs.removeLast()
        }
    }

    private func startedWorkers() throws -> CompressionWorkers<ZstdJob> {
        if let workers { return workers }
        let (level, name) = (level, name)
        let started = try CompressionWorkers<ZstdJob>(count: workerCount, archive: name) {
            try ZstdContext(level: level, name: name)
        }
        workers = started
        return started
    }

    /// Passes on a job's frame; the job becomes spare.
    private func emit(_ job: ZstdJob) throws {
        try ZstdContext.check(job.result, name: name)
        try output(UnsafeRawBufferPointer(rebasing: job.output[..<job.result]))
        job.filled = 0
        spareJobs.append(job)
    }
}

/// A zstd compression context at a fixed level, writing a checksum in
/// every frame; reused for every frame it compresses.
final class ZstdContext {
    let pointer: OpaquePointer

    init(level: Int, name: String) throws {
        guard let pointer = ZSTD_createCCtx() else {
            throw ArchiveError(.libarchive, archive: name, message: "zstd could not allocate a compressor")
        }
        self.pointer = pointer
        try Self.check(ZSTD_CCtx_setParameter(pointer, ZSTD_c_compressionLevel, CInt(level)), name: name)
        try Self.check(ZSTD_CCtx_setParameter(pointer, ZSTD_c_checksumFlag, 1), name: name)
    }

    deinit {
        ZSTD_freeCCtx(pointer)
    }

    /// Throws zstd's error when `result` is one.
    static func check(_ result: Int, name: String) throws {
        guard ZSTD_isError(result) != 0 else { return }
        let message = String(cString: ZSTD_getErrorName(result))
        throw ArchiveError(.libarchive, archive: name, message: "zstd: \(message)")
    }
}

/// A chunk of the stream and, once a worker has run it, its frame.
final class ZstdJob: CompressionJob, @unchecked Sendable {
    let input: UnsafeMutableRawBufferPointer
    /// How much of ``input`` holds the chunk.
    var filled = 0
    /// Room for the chunk compressed, whatever its bytes.
    let output: UnsafeMutableRawBufferPointer
    /// The frame's size in ``output``, or zstd's error.
    var result = 0
    var isDone = false

    init(chunkSize: Int) {
        input = .allocate(byteCount: chunkSize, alignment: 64)
        output = .allocate(byteCount: ZSTD_compressBound(chunkSize), alignment: 64)
    }

    deinit {
        input.deallocate()
        output.deallocate()
    }

    func run(with context: ZstdContext) {
        result = ZSTD_compress2(context.pointer, output.baseAddress, output.count, input.baseAddress, filled)
    }
}
