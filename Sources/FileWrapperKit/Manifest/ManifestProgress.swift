import Synchronization

/// How far the making of a manifest has come, for a progress display: the
/// entries met and the content bytes hashed so far, and what they will
/// come to once that is known. Safe to read from any thread while the
/// readers count.
public final class ManifestProgress: Sendable {
    private let entryCount = Atomic<Int>(0)
    private let byteCount = Atomic<Int64>(0)
    /// -1 until known.
    private let entryTotal = Atomic<Int>(-1)
    private let byteTotal = Atomic<Int64>(-1)

    public init() {}

    public var entries: Int { entryCount.load(ordering: .relaxed) }
    public var bytes: Int64 { byteCount.load(ordering: .relaxed) }

    /// The entries and content bytes the work comes to, once something
    /// counted them ahead (a directory walked first, a zip's central
    /// directory); nil until then.
    public var total: (entries: Int, bytes: Int64)? {
        let entries = entryTotal.load(ordering: .acquiring)
        guard entries >= 0 else { return nil }
        return (entries, byteTotal.load(ordering: .relaxed))
    }

    package func count(entries: Int = 0, bytes: Int64 = 0) {
        if entries != 0 { entryCount.add(entries, ordering: .relaxed) }
        if bytes != 0 { byteCount.add(bytes, ordering: .relaxed) }
    }

    /// Records what the work comes to, for ``total``.
    package func setTotal(entries: Int, bytes: Int64) {
        byteTotal.store(bytes, ordering: .relaxed)
        entryTotal.store(entries, ordering: .releasing)
    }
}
