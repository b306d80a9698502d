/// The end of our own archive writers (``ZipWriter``, ``TarWriter``): small
/// pieces are gathered into one buffer before they go to the sink, so that
/// headers and small files do not cost a write each, and large pieces pass
/// straight through, never copied.
final class StagedSink {
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private let staging: UnsafeMutableRawBufferPointer
    private var staged = 0
    /// Bytes written so far, staged ones included: where the next byte goes.
    private(set) var position: UInt64 = 0

    /// The staging buffer's size: pieces at least this large pass straight through.
    static let capacity = 128 << 10

    init(_ sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.sink = sink
        staging = .allocate(byteCount: Self.capacity, alignment: 64)
    }

    deinit { staging.deallocate() }

    /// Passes `bytes` on; `entry` names what they belong to if the sink fails.
    func write(_ bytes: UnsafeRawBufferPointer, entry: String?) throws {
        if staged + bytes.count > staging.count { try flush(entry: entry) }
        if bytes.count >= staging.count {
            try pass(bytes, entry: entry)
        } else if bytes.count > 0 {
            (staging.baseAddress! + staged).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            staged += bytes.count
        }
        position += UInt64(bytes.count)
    }

    /// Passes `count` zero bytes on.
    func writeZeros(_ count: Int, entry: String?) throws {
        precondition(count <= staging.count)
        if staged + count > staging.count { try flush(entry: entry) }
        (staging.baseAddress! + staged).initializeMemory(as: UInt8.self, repeating: 0, count: count)
        staged += count
        position += UInt64(count)
    }

    /// Counts `count` bytes that were put into the sink's destination
    /// directly, after a ``flush(entry:)`` (a zip member copied as stored).
    func skip(_ count: Int) {
        precondition(staged == 0, "bytes were put beside the sink while some were staged")
        position += UInt64(count)
    }

    /// Passes on what is staged: the sink has every byte written so far.
    func flush(entry: String?) throws {
        guard staged > 0 else { return }
        let count = staged
        staged = 0
        try pass(UnsafeRawBufferPointer(rebasing: staging[..<count]), entry: entry)
    }

    /// The sink, with an archive error naming the entry.
    private func pass(_ bytes: UnsafeRawBufferPointer, entry: String?) throws {
        do {
            try sink(bytes)
        } catch let error as ArchiveError where error.entry == nil {
            var named = error
            named.entry = entry
            throw named
        }
    }
}
