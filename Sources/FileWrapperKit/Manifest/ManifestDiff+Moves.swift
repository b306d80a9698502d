/// Finding moves: pairing entries that left one path with entries of the
/// same contents that arrived at another.
extension ManifestDiff.Comparer {
    /// What identifies an entry's contents for a move.
    private enum Contents: Hashable {
        case file(SHA256Digest)
        case symlink([UInt8])
        case directory(SHA256Digest)
    }

    /// The digest of no bytes: every empty file has it, so it says nothing
    /// about where a file came from.
    private static let emptyFileDigest = SHA256Digest.of([UInt8]())

    /// Pairs the removed and added entries whose contents are the same
    /// into moves.
    ///
    /// Directories are paired first, outermost first, so that a moved
    /// directory is one move; then files and symbolic links that are not in
    /// a moved directory.
    mutating func findExactMoves() {
        guard !removedRoots.isEmpty, !addedRoots.isEmpty else { return }
        let removed = candidates(below: removedRoots, in: old)
        let added = candidates(below: addedRoots, in: new)
        // Sorted by old position, a directory comes before the directories inside it.
        let directoryPairs = Self.pairs(removed.directories, added.directories, old: old, new: new).sorted { $0.old < $1.old }
        for pair in directoryPairs {
            let oldRange = pair.old..<old.endOfSubtree(at: pair.old), newRange = pair.new..<new.endOfSubtree(at: pair.new)
            guard !oldRange.contains(where: movedOld.contains), !newRange.contains(where: movedNew.contains) else { continue }
            movedOld.formUnion(oldRange)
            movedNew.formUnion(newRange)
            moves.append((pair.old, pair.new, 100))
        }
        let leaves = (
            removed.leaves.mapValues { $0.filter { !movedOld.contains($0) } },
            added.leaves.mapValues { $0.filter { !movedNew.contains($0) } })
        for pair in Self.pairs(leaves.0, leaves.1, old: old, new: new) {
            movedOld.insert(pair.old)
            movedNew.insert(pair.new)
            moves.append((pair.old, pair.new, 100))
        }
    }

    /// The entries that left and arrived and are not in an exact move,
    /// but for directories, in manifest order: where moves of changed
    /// files are looked for.
    func unpairedEntries() -> (old: [Int], new: [Int]) {
        func unpaired(below roots: [Int], in manifest: Manifest, moved: Set<Int>) -> [Int] {
            roots.flatMap { root in
                (root..<manifest.endOfSubtree(at: root)).filter { !moved.contains($0) && manifest.entries[$0].kind != .directory }
            }
        }
        return (unpaired(below: removedRoots, in: old, moved: movedOld), unpaired(below: addedRoots, in: new, moved: movedNew))
    }

    /// Adds moves of files whose contents changed: `old` and `new` index
    /// entries of ``unpairedEntries()``, `similarity` in percent.
    mutating func addSimilarMove(old oldIndex: Int, new newIndex: Int, similarity: Int) {
        movedOld.insert(oldIndex)
        movedNew.insert(newIndex)
        moves.append((oldIndex, newIndex, similarity))
    }

    /// Records the moves (with the metadata changes inside moved
    /// directories) and what is left of the removed and added subtrees.
    mutating func recordMovesAndTheRest() {
        for move in moves {
            let before = old.entries[move.old], after = new.entries[move.new]
            let oldEnd = old.endOfSubtree(at: move.old), newEnd = new.endOfSubtree(at: move.new)
            changes.append(ManifestDiff.Change(
                kind: .moved, old: before, new: after, fields: changedFields(before, after), entriesBelow: oldEnd - move.old - 1,
                similarity: move.similarity))
            // The same names and kinds below (the tree digests agree): only metadata can differ.
            compare(oldRange: (move.old + 1)..<oldEnd, newRange: (move.new + 1)..<newEnd, oldPrefix: before.path, newPrefix: after.path)
        }
        for root in removedRoots where !movedOld.contains(root) {
            let subtree = root + 1..<old.endOfSubtree(at: root)
            let below = subtree.count(where: { !movedOld.contains($0) })
            changes.append(ManifestDiff.Change(kind: .removed, old: old.entries[root], new: nil, entriesBelow: below,
                                               entriesMovedBelow: subtree.count - below))
        }
        for root in addedRoots where !movedNew.contains(root) {
            let subtree = root + 1..<new.endOfSubtree(at: root)
            let below = subtree.count(where: { !movedNew.contains($0) })
            changes.append(ManifestDiff.Change(kind: .added, old: nil, new: new.entries[root], entriesBelow: below,
                                               entriesMovedBelow: subtree.count - below))
        }
    }

    /// Every entry in the subtrees that start at `roots`, by contents, in
    /// manifest order; entries that cannot be told apart by contents (empty
    /// files and directories, devices) are left out.
    private func candidates(below roots: [Int], in manifest: Manifest)
        -> (directories: [Contents: [Int]], leaves: [Contents: [Int]]) {
        var directories: [Contents: [Int]] = [:], leaves: [Contents: [Int]] = [:]
        for root in roots {
            for index in root..<manifest.endOfSubtree(at: root) {
                let entry = manifest.entries[index]
                switch entry.contentKind {
                case .directory:
                    if let digest = entry.treeDigest, index + 1 < manifest.entries.count,
                       ManifestPath.isWithin(manifest.entries[index + 1].path, entry.path) {
                        directories[.directory(digest), default: []].append(index)
                    }
                case .file, .hardLink:
                    if let digest = entry.contentDigest, digest != Self.emptyFileDigest {
                        leaves[.file(digest), default: []].append(index)
                    }
                case .symlink:
                    leaves[.symlink(entry.linkTarget ?? []), default: []].append(index)
                case .other:
                    break
                }
            }
        }
        return (directories, leaves)
    }

    /// The moves among removed and added entries grouped by contents: where
    /// one entry left and one arrived with the same contents, they pair;
    /// where several did, those with the same name pair when the name is
    /// unique on both sides, and the rest stay removed and added.
    private static func pairs(
        _ removed: [Contents: [Int]], _ added: [Contents: [Int]], old: Manifest, new: Manifest
    ) -> [(old: Int, new: Int)] {
        var result: [(old: Int, new: Int)] = []
        for (contents, before) in removed {
            guard let after = added[contents], !before.isEmpty, !after.isEmpty else { continue }
            if before.count == 1, after.count == 1 {
                result.append((before[0], after[0]))
                continue
            }
            let beforeByName = Dictionary(grouping: before) { old.entries[$0].name }
            let afterByName = Dictionary(grouping: after) { new.entries[$0].name }
            for (name, oldIndices) in beforeByName where oldIndices.count == 1 {
                if let newIndices = afterByName[name], newIndices.count == 1 {
                    result.append((oldIndices[0], newIndices[0]))
                }
            }
        }
        return result
    }
}
