import FileWrapperArchive

/// What comparing archives inside archives may cost across one whole
/// `diff --patch`: how deep, how many bytes their contents expand to and
/// how many entries they hold, counted over every nested archive read
/// (both sides, the manifests and the contents of their changed files),
/// as syft caps nesting and bytes and diffoscope has
/// `--max-container-depth`. Past a limit, a nested archive is not
/// compared as a tree, and its patch says so and names the flag.
final class NestedArchiveBudget {
    /// The limits, as the flags give them.
    struct Limits {
        /// How many archives deep a nested archive is still compared as a tree.
        var maxDepth = 3
        /// Bytes of contents all nested archives may expand to, together.
        var maxBytes: Int64 = 256 << 20
        /// Entries all nested archives may hold, together.
        var maxEntries = 100_000
    }

    /// Why a nested archive was not compared, and the flag that raises the limit.
    struct Exceeded: Error {
        var reason: String
        var flag: String
    }

    let limits: Limits
    /// What was read so far; past a limit once the budget is spent.
    private var bytes: Int64 = 0
    private var entries = 0

    init(_ limits: Limits) {
        self.limits = limits
    }

    /// Why an archive `depth` archives deep is not compared; nil when it may be.
    func refusal(atDepth depth: Int) -> Exceeded? {
        depth < limits.maxDepth ? nil : Exceeded(reason: "archives nested more than \(limits.maxDepth) deep", flag: "--max-nested-depth")
    }

    /// The reason once a limit is passed; nil before.
    var spent: Exceeded? {
        if bytes > limits.maxBytes {
            return Exceeded(reason: "nested archives expand past \(limits.maxBytes) bytes", flag: "--max-nested-bytes")
        }
        if entries > limits.maxEntries {
            return Exceeded(reason: "nested archives hold more than \(limits.maxEntries) entries", flag: "--max-nested-entries")
        }
        return nil
    }

    /// `outer` lowered to what is left of the budget, for reading a nested
    /// archive's manifest; nil once the budget is spent.
    func readingLimits(_ outer: ArchiveReadLimits) -> ArchiveReadLimits? {
        guard spent == nil else { return nil }
        var lowered = outer
        lowered.maxBytes = min(outer.maxBytes, limits.maxBytes - bytes)
        lowered.maxEntries = min(outer.maxEntries, limits.maxEntries - entries)
        return lowered
    }

    /// The budget's reason when `error`, from reading with `lowered`
    /// (``readingLimits(_:)``), is a limit the budget lowered; the budget
    /// is spent from then on. Nil for any other error.
    func exceeded(by error: Error, lowered: ArchiveReadLimits, outer: ArchiveReadLimits) -> Exceeded? {
        guard let error = error as? ArchiveError, error.code == .limitExceeded else { return nil }
        switch error.limit {
        case .maxBytes where lowered.maxBytes < outer.maxBytes: bytes = limits.maxBytes + 1
        case .maxEntries where lowered.maxEntries < outer.maxEntries: entries = limits.maxEntries + 1
        default: return nil
        }
        return spent
    }

    /// Counts bytes of contents and entries read from nested archives;
    /// throws the reason once they pass a limit.
    func spend(bytes count: Int, entries added: Int = 0) throws {
        bytes = bytes.addingReportingOverflow(Int64(count)).overflow ? .max : bytes + Int64(count)
        entries = entries.addingReportingOverflow(added).overflow ? .max : entries + added
        if let spent { throw spent }
    }
}
