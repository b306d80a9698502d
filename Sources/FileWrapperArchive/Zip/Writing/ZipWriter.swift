import CZlib
import Foundation

/// Writes a zip, deflating on every core, streaming: the bytes go to the
/// sink in order and are never sought back to, and memory is a few
/// fixed-size jobs whatever the files' sizes.
///
/// Entries are gathered into ``DeflateJob``s that ``CompressionWorkers`` run:
/// - Small entries (a file of at most one chunk, a directory, a symlink,
///   whose target is its data) are batched, many to a job, each deflated on
///   its own. Their headers are written once the job is done, so they carry
///   the CRC and sizes and need no data descriptor. A file whose deflated
///   bytes are not smaller than the file is stored instead.
/// - A larger file is cut into chunks of ``chunkSize``, a job each: every
///   chunk is deflated primed with the 32 KiB before it, so that the chunks
///   make one deflate stream, and the CRCs are combined in order. Whether it
///   is deflated at all is judged before its header is written, from
///   samples spread across the whole file where its source can be read
///   ahead, else from its first bytes (see ``storesBetter(_:)``); a stored
///   one's chunks are only checksummed. Within a deflated file, each chunk
///   that would not shrink is copied as stored blocks of the same deflate
///   stream instead (see ``DeflateJob``). Its CRC and compressed size
///   follow its data in a descriptor.
///
/// Jobs finish in any order and are written in the order the entries came,
/// at most ``maxJobs`` at a time. What a job produces depends only on its
/// input, and the input is cut by the entries' sizes alone, so the archive
/// is the same bytes whatever the number of cores or the threads' timing.
final class ZipWriter: ArchiveEntryWriter {
    /// The size of a large file's chunks, and the most a batch of small
    /// entries holds.
    static let chunkSize = 128 << 10
    /// Deflate's window: how much of the previous chunk primes the next.
    static let window = 32 << 10
    /// The most entries a batch holds (directories hold no bytes).
    static let batchEntries = 256
    /// How much of a large file ``storesBetter(_:)`` samples: `sampleCount`
    /// pieces of `sampleLength` spread evenly from its start to its end, or
    /// its first `sampleCount * sampleLength` bytes when its source can
    /// only be read in order.
    static let sampleCount = 16
    static let sampleLength = 4 << 10
    /// The most deflate workers, whatever the number of cores: each costs
    /// two zlib streams (270 KiB each: one at the writer's level, one at
    /// level 1 to judge chunks) and two jobs (290 KiB each), so memory
    /// stays under 10 MiB on a large machine, which deflates 160 MB/s of
    /// text then.
    static let maxWorkers = 8

    private let archive: String
    /// The deflate level; nil when every entry is stored.
    private let level: Int?
    private let workers: CompressionWorkers<DeflateJob>
    /// How many jobs may exist: two a worker and two more, enough to keep
    /// every worker busy while one job is filled and another written
    /// (about 1.7 MiB of buffers with two workers).
    private let maxJobs: Int

    /// A job handed to the workers, or being filled, and the entry of each
    /// of its pieces.
    private struct InFlight {
        var job: DeflateJob
        var parts: [Part]
    }

    /// The entry a piece belongs to, and whether it holds the entry's first
    /// and last bytes (both, for a small entry).
    private struct Part {
        var entry: ZipEntry
        var first: Bool
        var last: Bool
    }

    /// Jobs in the order their entries came.
    private var inFlight: [InFlight] = []
    /// Whether the last job in flight is still being filled (a batch taking
    /// more entries, or a chunk taking more bytes) and not yet submitted.
    private var filling = false
    private var spareJobs: [DeflateJob] = []
    private var jobsMade = 0

    /// The regular file whose bytes ``writeData(_:entry:)`` takes.
    private var receiving: Receiving?

    private struct Receiving {
        var entry: ZipEntry
        /// Bytes still to come.
        var remaining: Int
        /// Where the next byte goes in the last job's input.
        var cursor: Int
        /// For a large file: the chunks submitted so far.
        var chunks = 0
        /// Whether the method was judged from samples across the file, not
        /// to be judged again from its first chunk.
        var judged = false
    }

    /// The last ``window`` bytes of a large file's previous chunk.
    private let tail: UnsafeMutableRawBufferPointer
    /// The judge for ``storesBetter(_:)``, made on first use.
    private var judge: StoreJudge?

    /// Where the archive's bytes go.
    private let output: StagedSink
    /// Where fields turn to zip64: ``Zip64Thresholds/current`` when the writer was made.
    private let thresholds = Zip64Thresholds.current
    private var centralDirectory = CentralDirectory()

    /// A writer for `options`, passing the archive's bytes to `sink`, with
    /// `workers` threads (one per core, up to ``maxWorkers``, unless a test
    /// asks otherwise).
    init(
        options: ArchiveWriteOptions, name: String, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
        sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let level = options.compressionLevel ?? 6
        guard (0...9).contains(level) else {
            throw ArchiveError(.libarchive, archive: name, message: "a zip's compression level is 0 to 9, not \(level)")
        }
        // Level 0 deflates nothing: it stores.
        let deflateLevel = options.zipMethod == .store || level == 0 ? nil : level
        self.level = deflateLevel
        archive = name
        output = StagedSink(sink)
        let count = min(max(1, workers), Self.maxWorkers)
        maxJobs = 2 * count + 2
        self.workers = try CompressionWorkers(count: count, archive: name) { () throws(ArchiveError) -> DeflateJob.Deflaters? in
            guard let deflateLevel else { return nil }
            guard let deflater = RawDeflater(level: deflateLevel), let judge = StoreJudge() else {
                throw ArchiveError(.libarchive, archive: name, message: "zlib could not allocate a compressor")
            }
            return DeflateJob.Deflaters(deflater: deflater, judge: judge)
        }
        tail = .allocate(byteCount: Self.window, alignment: 64)
    }

    deinit {
        workers.stop()
        tail.deallocate()
    }

    /// The page size that ``alignEnd(ofNextEntryAt:)`` aligns to.
    static let alignmentBoundary = 4096

    /// Where the bytes after the next entry are to begin, modulo
    /// ``alignmentBoundary``.
    private var nextEndAlignment: Int?

    /// Asks that the bytes after the next entry begin at `remainder` modulo
    /// ``alignmentBoundary``, by padding its local header with an
    /// alignment field as Android's `zipalign` writes it: where a member
    /// copied as stored follows (``ZipContainerWriter``), so that it lands
    /// where it lay in its own zip modulo a page, and `copy_file_range`
    /// reads whole pages into whole pages (a quarter faster than pages
    /// taken from two; ``ZipContainerWriter``'s `CopyRun`). Only
    /// an entry whose sizes are known when its header is written (one
    /// that needs no data descriptor), and not a ``plain`` one, is padded.
    func alignEnd(ofNextEntryAt remainder: Int) {
        nextEndAlignment = remainder
    }

    func writeHeader(_ header: ArchiveEntryHeader, stored: Bool) throws {
        precondition(receiving == nil, "an entry's header came before the previous file's bytes all did")
        let entry = ZipEntry(header, plain: stored, thresholds: thresholds)
        if !stored { entry.endAlignment = nextEndAlignment }
        nextEndAlignment = nil
        switch header.kind {
        case .directory:
            try addToBatch(entry, count: 0, work: .checksum)
        case .symbolicLink:
            let target = header.linkTarget ?? []
            let start = try addToBatch(entry, count: target.count, work: .checksum)
            let input = inFlight[inFlight.count - 1].job.input
            target.withUnsafeBytes { input.baseAddress!.advanced(by: start).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        case .regularFile where header.size <= Self.chunkSize:
            let work: DeflateJob.Work = level == nil || stored || header.size == 0 ? .checksum : .deflate
            let start = try addToBatch(entry, count: header.size, work: work)
            if header.size > 0 { receiving = Receiving(entry: entry, remaining: header.size, cursor: start) }
        case .regularFile:
            try submitFilling()
            entry.hasDescriptor = true
            entry.method = level == nil || stored ? .stored : .deflated
            var file = Receiving(entry: entry, remaining: header.size, cursor: 0)
            if entry.method == .deflated, let samples = try? header.samples?(Self.sampleOffsets(size: header.size), Self.sampleLength) {
                if try storesBetter(samples) { entry.method = .stored }
                file.judged = true
            }
            receiving = file
        }
    }

    func writeData(_ bytes: UnsafeRawBufferPointer, entry path: String) throws {
        guard bytes.count > 0 else { return }
        guard var file = receiving, bytes.count <= file.remaining else {
            preconditionFailure("more bytes for \(path) than its header gave")
        }
        var offset = 0
        while offset < bytes.count {
            if file.entry.hasDescriptor, !filling {
                file.cursor = try startChunk(of: file)
            }
            let job = inFlight[inFlight.count - 1].job
            let end = file.entry.hasDescriptor ? chunkStart(of: file) + Self.chunkSize : file.cursor + file.remaining
            let count = min(bytes.count - offset, end - file.cursor)
            job.input.baseAddress!.advanced(by: file.cursor).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            offset += count
            file.cursor += count
            file.remaining -= count
            if file.entry.hasDescriptor, file.cursor == end || file.remaining == 0 {
                try finishChunk(of: &file)
            }
        }
        receiving = file.remaining > 0 ? file : nil
    }

    func close() throws {
        precondition(receiving == nil, "the archive was closed before the last file's bytes all came")
        try submitFilling()
        while let first = inFlight.first {
            workers.wait(for: first.job)
            try emit(inFlight.removeFirst())
        }
        workers.stop()
        let directoryOffset = output.position
        for block in centralDirectory.blocks {
            try block.withUnsafeBytes { try output.write($0, entry: nil) }
        }
        let end = ZipDirectoryEnd(count: UInt64(centralDirectory.count), size: centralDirectory.size, offset: directoryOffset)
            .encoded(thresholds: thresholds)
        try end.withUnsafeBytes { try output.write($0, entry: nil) }
        try output.flush(entry: nil)
    }

    // MARK: - Jobs

    /// Adds a piece of `count` bytes for `entry` to the batch being filled,
    /// starting one when there is none or it is full; returns where the
    /// piece's bytes go in the job's input.
    @discardableResult
    private func addToBatch(_ entry: ZipEntry, count: Int, work: DeflateJob.Work) throws -> Int {
        let fits = filling && inFlight.last.map {
            $0.job.pieces.count < Self.batchEntries && batchEnd($0.job) + count <= Self.chunkSize
        } == true
        if !fits {
            try submitFilling()
            try startJob()
        }
        let index = inFlight.count - 1
        let start = batchEnd(inFlight[index].job)
        inFlight[index].job.pieces.append(DeflateJob.Piece(input: start..<start + count, work: work))
        inFlight[index].parts.append(Part(entry: entry, first: true, last: true))
        return start
    }

    private func batchEnd(_ job: DeflateJob) -> Int {
        job.pieces.last?.input.upperBound ?? 0
    }

    /// Starts the next chunk of a large file: a new job, primed with the
    /// previous chunk's last bytes when the file is deflated. Returns where
    /// the chunk's bytes go.
    private func startChunk(of file: Receiving) throws -> Int {
        try startJob()
        let start = chunkStart(of: file)
        if start > 0 {
            inFlight[inFlight.count - 1].job.input.copyMemory(from: UnsafeRawBufferPointer(tail))
        }
        return start
    }

    /// Where the current chunk's bytes start in its job's input: after the
    /// primer, for a deflated file's chunks but the first.
    private func chunkStart(of file: Receiving) -> Int {
        file.chunks > 0 && file.entry.method == .deflated ? Self.window : 0
    }

    /// Hands a full chunk (or the file's last) to the workers; the first
    /// decides, from its first bytes, whether a file not judged from
    /// samples across it is stored.
    private func finishChunk(of file: inout Receiving) throws {
        let index = inFlight.count - 1
        let job = inFlight[index].job
        let start = chunkStart(of: file)
        let data = UnsafeRawBufferPointer(rebasing: job.input[start..<file.cursor])
        if file.chunks == 0, !file.judged, file.entry.method == .deflated,
           try storesBetter([[UInt8](data.prefix(Self.sampleCount * Self.sampleLength))]) {
            file.entry.method = .stored
        }
        let last = file.remaining == 0
        let work: DeflateJob.Work
        if file.entry.method == .deflated {
            work = .deflateChunk(dictionary: start, last: last)
            if !last { tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: data.suffix(Self.window))) }
        } else {
            work = .checksum
        }
        job.pieces.append(DeflateJob.Piece(input: start..<file.cursor, work: work))
        inFlight[index].parts.append(Part(entry: file.entry, first: file.chunks == 0, last: last))
        file.chunks += 1
        try submitFilling()
    }

    /// Where the samples of a file of `size` bytes (more than one chunk)
    /// start: the first at its start, the last at its end, the others
    /// evenly between.
    static func sampleOffsets(size: Int) -> [Int] {
        let last = size - sampleLength
        return (0..<sampleCount).map { last * $0 / (sampleCount - 1) }
    }

    /// Whether a file too large for one chunk is better stored: when
    /// deflate at level 1 saves less than 2 % of `samples` (each deflated
    /// on its own; ``StoreJudge/savesLittle(_:)``), at the cost of one fast
    /// pass over 64 KiB. Samples from across the file catch a file that
    /// starts with random bytes and goes on with text (a media header then
    /// metadata, a container of mixed parts): it is deflated, as Info-ZIP
    /// deflates it, its random chunks stored within the deflate stream.
    private func storesBetter(_ samples: [[UInt8]]) throws -> Bool {
        if judge == nil {
            guard let made = StoreJudge() else {
                throw ArchiveError(.libarchive, archive: archive, message: "zlib could not allocate a compressor")
            }
            judge = made
        }
        let joined = [UInt8](samples.joined())
        return joined.withUnsafeBytes { all in
            var start = 0
            let pieces = samples.map { sample in
                defer { start += sample.count }
                return UnsafeRawBufferPointer(rebasing: all[start..<start + sample.count])
            }
            return judge!.savesLittle(pieces)
        }
    }

    /// Puts a job at the end of the line, to be filled: a spare one, a new
    /// one while fewer than ``maxJobs`` exist, or else the oldest once it
    /// is done and written.
    private func startJob() throws {
        precondition(!filling, "a job was started while another was being filled")
        let job: DeflateJob
        if let spare = spareJobs.popLast() {
            job = spare
        } else if jobsMade < maxJobs {
            jobsMade += 1
            job = DeflateJob(inputCapacity: Self.window + Self.chunkSize, chunkSize: Self.chunkSize)
        } else {
            workers.wait(for: inFlight[0].job)
            try emit(inFlight.removeFirst())
            job = spareJobs.removeLast()
        }
        inFlight.append(InFlight(job: job, parts: []))
        filling = true
    }

    /// Hands the job being filled, if any, to the workers, and writes the
    /// jobs at the front of the line that are done.
    private func submitFilling() throws {
        if filling {
            workers.submit(inFlight[inFlight.count - 1].job)
            filling = false
        }
        while let first = inFlight.first, workers.isDone(first.job) {
            try emit(inFlight.removeFirst())
        }
    }

    // MARK: - Members copied as stored

    /// Puts a member copied as it is stored in another zip (local header,
    /// data and descriptor, `length` bytes) after the entries written so
    /// far: waits for them to be written, flushes, lets `copy` put the
    /// bytes straight into the sink's file at the offset it is given
    /// (``ZipContainerWriter`` with `copy_file_range`, at the latest before
    /// the sink's next bytes), and
    /// records the central directory record that
    /// `centralRecord` makes for the offset where they begin, given the
    /// zip64 thresholds.
    func writeCopiedMember(
        length: Int, centralRecord: (_ offset: UInt64, Zip64Thresholds) -> [UInt8], copy: (_ offset: UInt64) throws -> Void
    ) throws {
        precondition(receiving == nil, "a copied member came before the previous file's bytes all did")
        try submitFilling()
        while let first = inFlight.first {
            workers.wait(for: first.job)
            try emit(inFlight.removeFirst())
        }
        try output.flush(entry: nil)
        let offset = output.position
        try copy(offset)
        output.skip(length)
        centralDirectory.append(centralRecord(offset, thresholds))
    }

    // MARK: - Output

    /// Writes a finished job's entries: headers, data, descriptors, and
    /// their central directory records; the job becomes spare.
    private func emit(_ done: InFlight) throws {
        let job = done.job
        for (piece, part) in zip(job.pieces, done.parts) {
            let entry = part.entry
            if let failure = job.failure {
                throw ArchiveError(.libarchive, archive: archive, entry: entry.path, message: failure)
            }
            let data = UnsafeRawBufferPointer(rebasing: piece.output.map { job.output[$0] } ?? job.input[piece.input])
            if part.first {
                if !entry.hasDescriptor {
                    entry.method = piece.output == nil ? .stored : .deflated
                    entry.checksum = piece.checksum
                    entry.compressedSize = UInt64(data.count)
                }
                entry.offset = output.position
                if let remainder = entry.endAlignment, part.last, !entry.hasDescriptor {
                    let boundary = Self.alignmentBoundary
                    let end = Int(output.position % UInt64(boundary)) + entry.localHeader.count + data.count
                    var padding = ((remainder - end) % boundary + boundary) % boundary
                    if padding > 0, padding < ZipExtraFields.alignmentFieldLength { padding += boundary }
                    entry.padding = padding
                }
                try entry.localHeader.withUnsafeBytes { try output.write($0, entry: entry.path) }
            }
            if entry.hasDescriptor {
                entry.checksum = part.first ? piece.checksum : UInt32(crc32_combine(UInt(entry.checksum), UInt(piece.checksum), off_t(piece.input.count)))
                entry.compressedSize += UInt64(data.count)
            }
            try output.write(data, entry: entry.path)
            if part.last {
                if entry.hasDescriptor { try entry.descriptor.withUnsafeBytes { try output.write($0, entry: entry.path) } }
                centralDirectory.append(entry.centralRecord)
            }
        }
        job.reset()
        spareJobs.append(job)
    }
}

/// The central directory's records, kept until the archive closes in
/// blocks of 64 KiB: one growing array would hold up to twice their size
/// as it is copied (4.7 MB at its peak for the 2.6 MB of 20,700 entries).
private struct CentralDirectory {
    private(set) var blocks: [[UInt8]] = []
    private(set) var count = 0
    private(set) var size: UInt64 = 0

    static let blockSize = 64 << 10

    mutating func append(_ record: [UInt8]) {
        if blocks.isEmpty || blocks[blocks.count - 1].count + record.count > Self.blockSize {
            blocks.append([])
            blocks[blocks.count - 1].reserveCapacity(max(Self.blockSize, record.count))
        }
        blocks[blocks.count - 1] += record
        count += 1
        size += UInt64(record.count)
    }
}
