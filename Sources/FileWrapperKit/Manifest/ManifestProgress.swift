import Synchronization

/// How far the making of a manifest has come, for a progress display: the
/// entries met and the content bytes hashed so far. Safe to read from any
/// thread while the readers count.
public final class ManifestProgress: Sendable {
    private let entryCount = Atomic<Int>(0)
    private let byteCount = Atomic<Int64>(0)

    public init() {}

    public var entries: Int { entryCount.load(ordering: .relaxed) }
    public var bytes: Int64 { byteCount.load(ordering: .relaxed) }

    package func count(entries: Int = 0, bytes: Int64 = 0) {
        if entries != 0 { entryCount.add(entries, ordering: .relaxed) }
        if bytes != 0 { byteCount.add(bytes, ordering: .relaxed) }
    }
}
