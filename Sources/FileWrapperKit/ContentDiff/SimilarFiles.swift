/// Pairs removed files with added ones whose contents are alike, as
/// `git diff -M` finds renames (diffcore-rename.c after its exact pass):
/// first files whose name (last path component) is unique among the
/// removed and among the added, when they are at least halfway between the
/// threshold and 100 % alike; then the rest, each added file to the most
/// alike removed one, best pairs first. Scoring every pair costs removed ×
/// added comparisons, which callers bound by ``limit`` (``ManifestDiff``
/// does not read the files when there are more).
///
/// Scores are git's: the bytes of the removed file that reappear in the
/// added one (``ContentSignature``) over the larger size, out of
/// ``maxScore``.
public struct SimilarFiles: Sendable {
    /// A removed or added entry that exact moves left unpaired.
    public struct Candidate: Sendable {
        /// Its path, for its name.
        public var path: [UInt8]
        /// Its contents' signature; nil for what is not compared (a
        /// symbolic link, a file over the read limit), which still counts
        /// when telling whether a name is unique, as in git.
        public var signature: ContentSignature?

        /// A file to pair.
        ///
        /// - Parameters:
        ///   - path: Its path in the tree.
        ///   - signature: Its contents' signature; nil when they are not compared.
        public init(path: [UInt8], signature: ContentSignature?) {
            self.path = path
            self.signature = signature
        }

        var name: ArraySlice<UInt8> {
            path.lastIndex(of: UInt8(ascii: "/")).map { path[($0 + 1)...] } ?? path[...]
        }
    }

    /// A removed and an added file paired, with their score.
    public struct Pair: Sendable, Hashable {
        public var removed: Int
        public var added: Int
        public var score: Int

        /// The score in percent, as git prints it (`R087`).
        public var percent: Int { score * 100 / SimilarFiles.maxScore }
    }

    /// git's full score (MAX_SCORE).
    public static let maxScore = 60_000
    /// git's default rename limit (diff.renameLimit): beyond this many
    /// removed times this many added files, moves of changed files are not
    /// looked for, by default.
    public static let limit = 1_000
    /// How many best candidates git keeps per added file.
    private static let candidatesPerFile = 4

    /// The least score of a pair.
    public let minimumScore: Int
    /// The pairs, removed and added as indices into the inputs.
    public private(set) var pairs: [Pair] = []

    /// Pairs `removed` and `added` at `minimumPercent` % alike or more (git's `-M50%`).
    ///
    /// - Parameters:
    ///   - removed: The files only the old tree holds.
    ///   - added: The files only the new tree holds.
    ///   - minimumPercent: How alike a pair must be, from 0 to 100; clamped to that range.
    public init(removed: [Candidate], added: [Candidate], minimumPercent: Int = 50) {
        minimumScore = Self.maxScore * min(max(minimumPercent, 0), 100) / 100
        var removedUsed = Array(repeating: false, count: removed.count)
        var addedUsed = Array(repeating: false, count: added.count)
        record(sameNamePairs(removed, added), &removedUsed, &addedUsed)
        let sources = removed.indices.filter { !removedUsed[$0] }
        let destinations = added.indices.filter { !addedUsed[$0] }
        guard !sources.isEmpty, !destinations.isEmpty else { return }
        // Each destination's best few, then all of them best first (a stable sort, as git's).
        var best: [Pair] = []
        for destination in destinations {
            var kept: [Pair] = []
            for source in sources {
                let pair = Pair(removed: source, added: destination,
                                 score: score(removed[source].signature, added[destination].signature, minimum: minimumScore))
                if kept.count < Self.candidatesPerFile {
                    kept.append(pair)
                } else if let worst = kept.indices.max(by: { Self.sortsBefore(kept[$0], kept[$1], removed, added) }),
                          Self.sortsBefore(pair, kept[worst], removed, added) {
                    kept[worst] = pair
                }
            }
            best += kept
        }
        let sorted = Self.stableSorted(best) { Self.sortsBefore($0, $1, removed, added) }
        record(sorted.filter { $0.score >= minimumScore }, &removedUsed, &addedUsed)
    }

    /// Pairs files whose name is unique among the removed and among the
    /// added, at the raised threshold (git's find_basename_matches).
    private func sameNamePairs(_ removed: [Candidate], _ added: [Candidate]) -> [Pair] {
        let minimum = minimumScore + (Self.maxScore - minimumScore) / 2
        let removedByName = Self.uniqueNames(removed), addedByName = Self.uniqueNames(added)
        var pairs: [Pair] = []
        for (index, candidate) in removed.enumerated() {
            guard removedByName[Array(candidate.name)] == index, let other = addedByName[Array(candidate.name)], other >= 0 else { continue }
            let score = score(candidate.signature, added[other].signature, minimum: minimum)
            if score >= minimum { pairs.append(Pair(removed: index, added: other, score: score)) }
        }
        return pairs
    }

    /// Each name's index, or -1 when several candidates have it.
    private static func uniqueNames(_ candidates: [Candidate]) -> [[UInt8]: Int] {
        var names: [[UInt8]: Int] = [:]
        for (index, candidate) in candidates.enumerated() {
            let name = Array(candidate.name)
            names[name] = names[name] == nil ? index : -1
        }
        return names
    }

    /// Takes `pairs` in order, each removed and added file once.
    private mutating func record(_ pairs: [Pair], _ removedUsed: inout [Bool], _ addedUsed: inout [Bool]) {
        for pair in pairs where !removedUsed[pair.removed] && !addedUsed[pair.added] {
            removedUsed[pair.removed] = true
            addedUsed[pair.added] = true
            self.pairs.append(pair)
        }
    }

    /// git's estimate_similarity: 0 when either is not compared or their
    /// sizes alone rule out `minimum`, else the bytes of `removed` found in
    /// `added` over the larger size.
    private func score(_ removed: ContentSignature?, _ added: ContentSignature?, minimum: Int) -> Int {
        guard let removed, let added else { return 0 }
        let largest = max(removed.size, added.size), smallest = min(removed.size, added.size)
        guard largest * (Self.maxScore - minimum) >= (largest - smallest) * Self.maxScore, added.size > 0 else { return 0 }
        return removed.copiedBytes(into: added) * Self.maxScore / largest
    }

    /// git's score_compare: the higher score first, then the pair whose names agree.
    private static func sortsBefore(_ a: Pair, _ b: Pair, _ removed: [Candidate], _ added: [Candidate]) -> Bool {
        if a.score != b.score { return a.score > b.score }
        return sameName(a, removed, added) && !sameName(b, removed, added)
    }

    private static func sameName(_ pair: Pair, _ removed: [Candidate], _ added: [Candidate]) -> Bool {
        removed[pair.removed].name.elementsEqual(added[pair.added].name)
    }

    /// `pairs` sorted by `before`, equal pairs in their order.
    private static func stableSorted(_ pairs: [Pair], by before: (Pair, Pair) -> Bool) -> [Pair] {
        pairs.enumerated().sorted { a, b in
            before(a.element, b.element) || (!before(b.element, a.element) && a.offset < b.offset)
        }.map(\.element)
    }
}
