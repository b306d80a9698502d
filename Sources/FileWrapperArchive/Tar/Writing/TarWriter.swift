import FileWrapperKit

/// Writes a POSIX pax tar, streaming: headers and small files are gathered
/// into one buffer, large files' bytes pass straight on to the sink (for a
/// .tar, the archive file; for a .tar.zst, the compressor), never copied.
///
/// In an uncompressed tar, the data of every file larger than
/// ``alignedSize`` starts on a 4 KiB boundary of the archive (its extended
/// header is padded, see ``TarHeader``). Our unpacker has the kernel copy
/// such a file straight from the archive (`copy_file_range`), and a copy
/// of whole pages took 0.031–0.040 s per 128 MiB here where one starting
/// 512 bytes into a page took 0.049–0.062 s. Padding costs at most 4.5 KiB
/// a file, under 3.6 % of the smallest one padded. A compressed tar is not
/// padded: nothing copies its bytes in place.
final class TarWriter: ArchiveEntryWriter {
    /// The boundary large files' data starts on: the page size.
    static let alignment = 4096
    /// Files larger than this are aligned: those our unpacker copies in
    /// the kernel rather than through its workers' memory.
    static let alignedSize = FileWorkers.largeFile

    private let output: StagedSink
    /// Ends what the sink feeds (a compressor's last bytes).
    private let finish: () throws -> Void
    private let alignsLargeFiles: Bool

    /// The regular file whose bytes ``writeData(_:entry:)`` takes: its
    /// path, the bytes still to come, and the zeros that follow them.
    private var receiving: (entry: String, remaining: Int, padding: Int)?

    /// A writer passing the archive's bytes to `sink`, then calling
    /// `finish` when the archive is closed; `alignsLargeFiles` for an
    /// uncompressed archive.
    init(alignsLargeFiles: Bool, sink: @escaping (UnsafeRawBufferPointer) throws -> Void, finish: @escaping () throws -> Void) {
        output = StagedSink(sink)
        self.finish = finish
        self.alignsLargeFiles = alignsLargeFiles
    }

    func writeHeader(_ header: ArchiveEntryHeader, stored: Bool) throws {
        precondition(receiving == nil, "an entry's header came before the previous file's bytes all did")
        let isFile = header.kind == .regularFile
        let aligned = alignsLargeFiles && isFile && header.size > Self.alignedSize
        let blocks = TarHeader.blocks(for: header, at: output.position, aligningTo: aligned ? Self.alignment : nil)
        try blocks.withUnsafeBytes { try output.write($0, entry: header.path) }
        if isFile, header.size > 0 {
            receiving = (header.path, header.size, Int(TarBlock.padding(after: Int64(header.size))))
        }
    }

    func writeData(_ bytes: UnsafeRawBufferPointer, entry path: String) throws {
        guard bytes.count > 0 else { return }
        guard var file = receiving, bytes.count <= file.remaining else {
            preconditionFailure("more bytes for \(path) than its header gave")
        }
        try output.write(bytes, entry: file.entry)
        file.remaining -= bytes.count
        if file.remaining > 0 {
            receiving = file
        } else {
            try output.writeZeros(file.padding, entry: file.entry)
            receiving = nil
        }
    }

    /// Writes tar's end, two blocks of zeros, and passes every byte on.
    func close() throws {
        precondition(receiving == nil, "the archive was closed before the last file's bytes all came")
        try output.writeZeros(2 * TarBlock.size, entry: nil)
        try output.flush(entry: nil)
        try finish()
    }
}
