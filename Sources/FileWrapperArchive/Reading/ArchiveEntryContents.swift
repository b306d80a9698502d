/// The contents of the entry that ``ArchiveEntries`` is at, read in blocks
/// as libarchive decodes them (`archive_read_data`). Valid only while the
/// entry is being visited; whatever the visitor leaves unread is read and
/// dropped after it when contents are checked, so that damaged data is
/// found either way.
public final class ArchiveEntryContents {
    private let handle: any ArchiveEntryStream
    private let entry: ArchiveEntry
    private let budget: Budget
    private var atEnd: Bool
    private var isCurrent = true
    /// The first failure to read; the listing ends with it even if the
    /// visitor caught it, since libarchive may crash when read past an error.
    private var failure: ArchiveError?

    /// The bytes limit, counted over every entry of one listing. The ratio
    /// limit does not apply: a listing streams, so expanding costs no room,
    /// and a GNU sparse file legitimately expands its holes 1,800:1.
    final class Budget {
        var content: ContentBudget
        init(limits: ArchiveReadLimits) {
            var limits = limits
            limits.maxRatio = .infinity
            content = ContentBudget(limits: limits)
        }
    }

    init(handle: any ArchiveEntryStream, entry: ArchiveEntry, budget: Budget) {
        self.handle = handle
        self.entry = entry
        self.budget = budget
        // Only files carry contents; a link, a directory or a device has none to read.
        atEnd = ![.regularFile, .hardLink].contains(entry.kind)
    }

    /// Calls `body` with each block of the contents, in order, to the end.
    ///
    /// - Parameter body: Takes each block, valid only during the call.
    /// - Throws: ``ArchiveError`` naming the entry for encrypted contents,
    ///   damaged data, or when the contents of the whole archive pass
    ///   ``ArchiveReadLimits/maxBytes``; whatever `body` throws.
    public func forEachBlock(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        precondition(isCurrent, "the contents of \(entry.displayPath) were read after the listing had moved past the entry")
        if let failure { throw failure }
        guard !atEnd else { return }
        guard !entry.isEncrypted else {
            throw ArchiveError(.encrypted, archive: handle.name, entry: entry.pathForErrors, message: "the entry is encrypted")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do {
                count = try handle.readData(into: buffer, entry: entry.pathForErrors)
                try budget.content.spend(count, entry: entry.pathForErrors, from: handle)
            } catch let error as ArchiveError {
                failure = error
                throw error
            }
            guard count > 0 else { break }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        atEnd = true
    }

    /// Ends this entry, first `reading` what the visitor left unless it is
    /// encrypted; what is not read, libarchive skips.
    func finish(reading: Bool) throws {
        defer { isCurrent = false }
        guard reading, !entry.isEncrypted else { return }
        try forEachBlock { _ in }
    }
}
