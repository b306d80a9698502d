/// What changed from one manifest to another: entries added, removed,
/// moved, changed in contents, in kind or in metadata, as `wrapinspect diff`
/// reports them.
///
/// The rules, chosen so that the report says what a person did and
/// nothing that follows from it:
/// - Subtrees whose tree digest and metadata digest agree on both sides are
///   skipped without looking inside, so comparing two large manifests that
///   differ in one place costs little more than walking to that place.
/// - A field that one side does not record (`nil`, such as the owner in a
///   zip) is never a change. Modification times are compared at the
///   coarser ``Manifest/timeResolution`` of the two, both rounded down to
///   it, so a bundle and its zip (2 s) or its GNU tar (1 s) agree.
/// - A hard link compares as the file it names (contents and size); the
///   permission bits of symbolic links are not compared (Linux has none).
/// - A symbolic link's target is its contents: a new target is a
///   ``Change/Kind/contents`` change.
/// - A directory's modification time is not reported when entries were
///   added, removed, moved or changed kind directly inside it, since that
///   is what changed it; a directory touched alone is reported.
/// - An added or removed directory is one change, with the number of
///   entries below it, not one change per entry.
/// - Moves are found among the removed and added entries (see
///   ``ManifestDiff/init(from:to:ignoring:)``).
/// - Changes are in manifest order of their paths, a move at its old path,
///   and the metadata changes inside a moved directory right after it.
public struct ManifestDiff: Sendable {
    /// A metadata field, which `ignoring` can leave out of the comparison.
    /// The raw values are the names `wrapinspect diff --ignore` takes.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// Permission bits (with set-user-ID, set-group-ID and sticky).
        case mode
        /// The modification time.
        case mtime
        /// The user and group IDs.
        case owner
        /// The `user.*` extended attributes.
        case xattrs
    }

    /// One change, with the entries it is about.
    public struct Change: Sendable, Hashable {
        /// What kind of change; the raw values are the names in `--json` output.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// ``Change/new`` is new, with everything below it.
            case added
            /// ``Change/old`` is gone, with everything below it.
            case removed
            /// A file's contents or a symbolic link's target changed; the
            /// entry's metadata may have changed too (``Change/fields``).
            case contents
            /// The path holds another kind of entry (a file became a
            /// symbolic link). Nothing else is compared.
            case kind
            /// Only the metadata in ``Change/fields`` changed.
            case metadata
            /// The entry is at another path (``Change/new``), with
            /// everything below it; the metadata may have changed too. The
            /// contents are the same, unless ``Change/similarity`` is under
            /// 100: a file that moved and changed.
            case moved
        }

        public let kind: Kind
        /// The entry before; `nil` for ``Kind/added``.
        public let old: ManifestEntry?
        /// The entry after; `nil` for ``Kind/removed``.
        public let new: ManifestEntry?
        /// The metadata fields that differ, in ``Field`` order; empty for
        /// additions, removals and kind changes.
        public let fields: [Field]
        /// For a directory added, removed or moved, or changed into or from
        /// a directory: how many entries below it go with it (entries that
        /// moved elsewhere are not counted). 0 otherwise.
        public let entriesBelow: Int
        /// For a directory added or removed: how many entries below it
        /// moved in (added) or out (removed), which ``entriesBelow`` leaves
        /// out; a directory whose every entry moved is not empty. 0 otherwise.
        public let entriesMovedBelow: Int
        /// For a move, how alike the contents are in percent, as git's
        /// similarity index: 100 when they are the same (a move found by
        /// digest), less for a file that moved and changed. nil otherwise.
        public let similarity: Int?

        init(
            kind: Kind, old: ManifestEntry?, new: ManifestEntry?, fields: [Field] = [], entriesBelow: Int = 0, entriesMovedBelow: Int = 0,
            similarity: Int? = nil
        ) {
            self.kind = kind
            self.old = old
            self.new = new
            self.fields = fields
            self.entriesBelow = entriesBelow
            self.entriesMovedBelow = entriesMovedBelow
            self.similarity = similarity
        }

        /// Whether a move's file has other contents at its new path.
        public var movedWithChanges: Bool {
            kind == .moved && old?.contentKind == .file && new?.contentKind == .file && old?.contentDigest != new?.contentDigest
        }

        /// The path the change is reported at: a move's old path, else the
        /// entry's path (after the change, for metadata changes inside a
        /// moved directory).
        public var path: [UInt8] {
            kind == .moved ? old!.path : (new ?? old)!.path
        }

        /// The entry the change is reported for: ``new`` when there is one
        /// and the change is not a move, else ``old``.
        public var entry: ManifestEntry {
            kind == .moved ? old! : (new ?? old)!
        }

        /// The extended attributes that were added, removed or changed in
        /// value, by name, each list sorted; empty unless ``fields``
        /// includes ``Field/xattrs``.
        public var extendedAttributeChanges: (added: [ExtendedAttributeName], removed: [ExtendedAttributeName], changed: [ExtendedAttributeName]) {
            guard fields.contains(.xattrs), let before = old?.extendedAttributes, let after = new?.extendedAttributes else {
                return ([], [], [])
            }
            return (
                after.keys.filter { before[$0] == nil }.sorted(),
                before.keys.filter { after[$0] == nil }.sorted(),
                before.keys.filter { after[$0] != nil && after[$0] != before[$0] }.sorted()
            )
        }

        /// Where the change sorts: its old path when it has one.
        var sortPath: [UInt8] { (old ?? new)!.path }
    }

    /// What the two manifests were made from.
    public let oldSource: Manifest.Source
    public let newSource: Manifest.Source
    /// The changes, in the order described above.
    public let changes: [Change]
    /// The fields left out of the comparison.
    public let ignoredFields: Set<Field>
    /// The time resolution both sides were compared at, in nanoseconds.
    public let timeResolution: Int64
    /// How many pairs of entries at one path were compared: a test hook
    /// that shows identical subtrees being skipped.
    package let comparedEntries: Int
    /// Whether moves of changed files were not looked for, the removed and
    /// added files being too many (``SimilarFiles/limit``, or as given).
    public let similarMovesSkipped: Bool

    /// Whether the two manifests hold the same tree, as far as compared.
    public var isEmpty: Bool { changes.isEmpty }

    /// The changes from `old` to `new`, leaving `ignoring` out.
    ///
    /// A move pairs a removed entry with an added one of the same contents:
    /// files with the same content digest (empty files never, as all are
    /// alike), symbolic links with the same target, directories with the
    /// same tree digest (empty ones never); a directory that moved is one
    /// change, not one per entry below it. When several removed and added
    /// entries share contents, those whose names (last path components)
    /// pair one to one are moves and the others stay added and removed.
    ///
    /// - Parameters:
    ///   - old: The manifest before.
    ///   - new: The manifest after.
    ///   - ignoring: The fields not compared.
    /// - Throws: ``ManifestError`` when either manifest was made without
    ///   hashing file contents: without digests, contents cannot be
    ///   compared.
    public init(from old: Manifest, to new: Manifest, ignoring: Set<Field> = []) throws(ManifestError) {
        try Self.requireDigests(old, new)
        var comparer = Comparer(old: old, new: new, ignoring: ignoring)
        comparer.compare(oldRange: 0..<old.entries.count, newRange: 0..<new.entries.count, oldPrefix: [], newPrefix: [])
        comparer.findExactMoves()
        self.init(comparer, skippedForLimit: false)
    }

    /// The changes from `old` to `new` as ``init(from:to:ignoring:)``
    /// finds them, and moves of files that also changed: the removed and
    /// added entries that are not exact moves are paired by
    /// ``SimilarFiles`` at `minimumPercent` alike or more, their contents'
    /// signatures given by `signatures` (called with the old side's
    /// entries, then the new side's; nil for an entry it does not compare).
    /// When there are more than `limit` × `limit` such pairs, nothing is
    /// read and only exact moves are found (``similarMovesSkipped``).
    ///
    /// - Parameters:
    ///   - old: The manifest before.
    ///   - new: The manifest after.
    ///   - ignoring: The fields not compared.
    ///   - minimumPercent: How alike, from 0 to 100, a changed file must be to
    ///     count as moved.
    ///   - limit: The most removed, and the most added, entries to pair.
    ///   - signatures: Reads the signatures of the entries of one side.
    /// - Throws: ``ManifestError`` when either manifest has no content
    ///   digests; whatever `signatures` throws.
    public init(
        from old: Manifest, to new: Manifest, ignoring: Set<Field> = [], minimumPercent: Int, limit: Int = SimilarFiles.limit,
        signatures: (_ entries: [ManifestEntry], _ side: Side) throws -> [ContentSignature?]
    ) throws {
        try Self.requireDigests(old, new)
        var comparer = Comparer(old: old, new: new, ignoring: ignoring)
        comparer.compare(oldRange: 0..<old.entries.count, newRange: 0..<new.entries.count, oldPrefix: [], newPrefix: [])
        comparer.findExactMoves()
        let unpaired = comparer.unpairedEntries()
        // Over the limit, nothing is read: the cost stays bounded, as git's diff.renameLimit bounds it.
        let skipped = unpaired.old.count * unpaired.new.count > limit * limit
        if !skipped, !unpaired.old.isEmpty, !unpaired.new.isEmpty {
            func candidates(_ indices: [Int], _ manifest: Manifest, _ side: Side, reading: Bool) throws -> [SimilarFiles.Candidate] {
                let entries = indices.map { manifest.entries[$0] }
                let files = entries.filter { $0.kind == .file && ($0.size ?? 0) > 0 }
                var found = files.isEmpty || !reading ? [] : try signatures(files, side)[...]
                return entries.map { entry in
                    let signature = entry.kind == .file && (entry.size ?? 0) > 0 ? found.popFirst() ?? nil : nil
                    return SimilarFiles.Candidate(path: entry.path, signature: signature)
                }
            }
            let removed = try candidates(unpaired.old, old, .old, reading: true)
            // When no removed file could be read (a manifest holds no contents), the added ones are not read for nothing.
            let added = try candidates(unpaired.new, new, .new, reading: removed.contains { $0.signature != nil })
            let similar = SimilarFiles(removed: removed, added: added, minimumPercent: minimumPercent)
            for pair in similar.pairs {
                comparer.addSimilarMove(old: unpaired.old[pair.removed], new: unpaired.new[pair.added], similarity: pair.percent)
            }
        }
        self.init(comparer, skippedForLimit: skipped)
    }

    /// Throws when either manifest was made without hashing file contents.
    private static func requireDigests(_ old: Manifest, _ new: Manifest) throws(ManifestError) {
        for manifest in [old, new] where !manifest.hasContentDigests {
            throw ManifestError(
                file: manifest.source.name,
                message: "the manifest has no content digests, so its files cannot be compared; diff needs manifests made with hashing")
        }
    }

    /// Which side of a diff.
    public enum Side: Sendable { case old, new }

    private init(_ comparer: Comparer, skippedForLimit: Bool) {
        var comparer = comparer
        comparer.recordMovesAndTheRest()
        oldSource = comparer.old.source
        newSource = comparer.new.source
        changes = comparer.finishedChanges()
        ignoredFields = comparer.ignoring
        timeResolution = comparer.timeResolution
        comparedEntries = comparer.comparedEntries
        similarMovesSkipped = skippedForLimit
    }
}

extension ManifestDiff {
    /// Walks two manifests side by side and collects their changes.
    struct Comparer {
        let old: Manifest
        let new: Manifest
        let ignoring: Set<ManifestDiff.Field>
        let timeResolution: Int64
        private(set) var comparedEntries = 0
        /// Changes found so far, in no particular order.
        var changes: [ManifestDiff.Change] = []
        /// The first entry of each subtree that is only on one side.
        var removedRoots: [Int] = []
        var addedRoots: [Int] = []
        /// Moves found so far, `similarity` in percent, and the entries they take.
        var moves: [(old: Int, new: Int, similarity: Int)] = []
        var movedOld: Set<Int> = []
        var movedNew: Set<Int> = []
        /// Directories (by path after the change) with an entry added, removed,
        /// moved or changed in kind directly inside: their own times are not news.
        private var structurallyChanged: Set<[UInt8]> = []

        init(old: Manifest, new: Manifest, ignoring: Set<ManifestDiff.Field>) {
            self.old = old
            self.new = new
            self.ignoring = ignoring
            timeResolution = max(old.timeResolution, new.timeResolution, 1)
        }

        /// Compares the entries of `oldRange` and `newRange`, two runs of whole
        /// subtrees whose paths start with `oldPrefix` and `newPrefix` (empty
        /// for the whole manifests, a moved directory's paths otherwise) and
        /// are matched by what follows the prefixes.
        mutating func compare(oldRange: Range<Int>, newRange: Range<Int>, oldPrefix: [UInt8], newPrefix: [UInt8]) {
            var oldIndex = oldRange.lowerBound, newIndex = newRange.lowerBound
            while oldIndex < oldRange.upperBound || newIndex < newRange.upperBound {
                let oldPath = oldIndex < oldRange.upperBound ? Self.relative(old.entries[oldIndex].path, to: oldPrefix) : nil
                let newPath = newIndex < newRange.upperBound ? Self.relative(new.entries[newIndex].path, to: newPrefix) : nil
                if let oldPath, newPath.map({ ManifestPath.precedes(oldPath, $0) }) ?? true {
                    removedRoots.append(oldIndex)
                    noteStructuralChange(at: old.entries[oldIndex].path)
                    oldIndex = old.endOfSubtree(at: oldIndex)
                } else if let newPath, oldPath.map({ ManifestPath.precedes(newPath, $0) }) ?? true {
                    addedRoots.append(newIndex)
                    noteStructuralChange(at: new.entries[newIndex].path)
                    newIndex = new.endOfSubtree(at: newIndex)
                } else {
                    if comparePair(oldIndex, newIndex) {
                        oldIndex += 1
                        newIndex += 1
                    } else {
                        oldIndex = old.endOfSubtree(at: oldIndex)
                        newIndex = new.endOfSubtree(at: newIndex)
                    }
                }
            }
        }

        /// Compares the entries at `oldIndex` and `newIndex`, which stand at one
        /// path, and records what changed; returns whether to go on with their
        /// children (both are directories whose digests differ).
        private mutating func comparePair(_ oldIndex: Int, _ newIndex: Int) -> Bool {
            comparedEntries += 1
            let before = old.entries[oldIndex], after = new.entries[newIndex]
            guard before.contentKind == after.contentKind else {
                // At most one of them is a directory, whose entries go with it.
                let below = old.endOfSubtree(at: oldIndex) - oldIndex - 1 + new.endOfSubtree(at: newIndex) - newIndex - 1
                changes.append(ManifestDiff.Change(kind: .kind, old: before, new: after, entriesBelow: below))
                noteStructuralChange(at: after.path)
                return false
            }
            let fields = changedFields(before, after)
            switch before.contentKind {
            case .directory:
                if !fields.isEmpty {
                    changes.append(ManifestDiff.Change(kind: .metadata, old: before, new: after, fields: fields))
                }
                return before.treeDigest != after.treeDigest || before.metadataDigest != after.metadataDigest
            case .file, .hardLink, .symlink:
                let contentsDiffer = before.contentKind == .symlink
                    ? before.linkTarget != after.linkTarget : before.contentDigest != after.contentDigest
                if contentsDiffer || !fields.isEmpty {
                    changes.append(ManifestDiff.Change(kind: contentsDiffer ? .contents : .metadata, old: before, new: after, fields: fields))
                }
            case .other:
                if !fields.isEmpty {
                    changes.append(ManifestDiff.Change(kind: .metadata, old: before, new: after, fields: fields))
                }
            }
            return false
        }

        /// The metadata fields that differ between `before` and `after`, of
        /// those both sides know and not ignored.
        func changedFields(_ before: ManifestEntry, _ after: ManifestEntry) -> [ManifestDiff.Field] {
            ManifestDiff.Field.allCases.filter { field in
                guard !ignoring.contains(field) else { return false }
                switch field {
                case .mode:
                    guard before.contentKind != .symlink, let a = before.permissions, let b = after.permissions else { return false }
                    return a != b
                case .mtime:
                    guard let a = before.modified, let b = after.modified else { return false }
                    return rounded(a) != rounded(b)
                case .owner:
                    guard let a = before.owner, let b = after.owner else { return false }
                    return a != b
                case .xattrs:
                    guard let a = before.extendedAttributes, let b = after.extendedAttributes else { return false }
                    return a != b
                }
            }
        }

        /// `time` in nanoseconds, rounded down to the common resolution.
        private func rounded(_ time: FileTimestamp) -> Int128 {
            let nanoseconds = Int128(time.seconds) * 1_000_000_000 + Int128(time.nanoseconds)
            let resolution = Int128(timeResolution)
            let quotient = nanoseconds / resolution
            return nanoseconds % resolution < 0 ? quotient - 1 : quotient
        }

        /// Remembers that the directory holding `path` had an entry come, go or change kind.
        private mutating func noteStructuralChange(at path: [UInt8]) {
            if let parent = ManifestPath.parent(of: path) {
                structurallyChanged.insert(parent)
            }
        }

        /// The changes in report order, directory times that follow from
        /// changes inside them left out.
        func finishedChanges() -> [ManifestDiff.Change] {
            var result: [ManifestDiff.Change] = []
            result.reserveCapacity(changes.count)
            for change in changes {
                guard change.kind == .metadata, change.new!.kind == .directory, change.fields.contains(.mtime),
                      structurallyChanged.contains(change.new!.path)
                else {
                    result.append(change)
                    continue
                }
                let fields = change.fields.filter { $0 != .mtime }
                if !fields.isEmpty {
                    result.append(ManifestDiff.Change(kind: .metadata, old: change.old, new: change.new, fields: fields))
                }
            }
            // Sorting by old path keeps each subtree together and puts the
            // changes inside a moved directory right after the move.
            return result.sorted { ManifestPath.precedes($0.sortPath, $1.sortPath) }
        }

        /// `path` without `prefix` and the slash after it; the path itself when
        /// the prefix is empty, and empty when it is the prefix.
        private static func relative(_ path: [UInt8], to prefix: [UInt8]) -> [UInt8] {
            guard !prefix.isEmpty else { return path }
            return path.count == prefix.count ? [] : Array(path[(prefix.count + 1)...])
        }
    }
}
