import Foundation

/// Collects entries in any order, from any source, and makes them a
/// ``Manifest``: paths normalized, directories that are only implied by
/// their contents added, everything sorted and checked, and the digests of
/// every directory computed. The one path every source goes through.
public struct ManifestBuilder {
    /// What two entries at one path make.
    public enum RepeatedPaths: Sendable, Hashable {
        /// An error that names the path: a tree has one entry a path.
        case refused
        /// The entry added last, as tar extraction leaves an archive that
        /// stores a path twice (`tar -rf`); the path is listed in
        /// ``Manifest/repeatedPaths``.
        case lastWins
    }

    private let source: Manifest.Source
    private let repeatedPaths: RepeatedPaths
    private var entries: [ManifestEntry] = []
    /// For a zip: even-second times mean DOS times, kept to 2 seconds.
    private let evenSecondsMeanDOSTimes: Bool
    /// The most entries the manifest may have, counting the folders that
    /// are only implied by paths but not the root
    /// (``ManifestReadLimits/maxEntries``): each costs its path, so a few
    /// deep paths must not make millions of them.
    package var maxEntries = Int.max

    /// A builder for a manifest of `source`.
    ///
    /// - Parameters:
    ///   - source: What the entries come from; it names the tree in errors.
    ///   - repeatedPaths: What two entries with one path make.
    public init(source: Manifest.Source, repeatedPaths: RepeatedPaths = .refused) {
        self.source = source
        self.repeatedPaths = repeatedPaths
        evenSecondsMeanDOSTimes = source.format?.lowercased().hasPrefix("zip") ?? false
    }

    /// Adds `entry` after cleaning its path (`./a//b/` is `a/b`, `.` is the
    /// root).
    ///
    /// - Parameter entry: The entry, its path as the source stores it.
    /// - Throws: ``ManifestError`` naming the entry when its path is
    ///   absolute or has a `..` component.
    public mutating func add(_ entry: ManifestEntry) throws(ManifestError) {
        var entry = entry
        entry.path = try normalizedPath(entry.path)
        entries.append(entry)
    }

    /// Adds every entry of `entries` as ``add(_:)`` does, taking the array
    /// over instead of copying the entries one by one.
    package mutating func add(contentsOf entries: consuming [ManifestEntry]) throws(ManifestError) {
        var entries = entries
        for index in entries.indices {
            let path = try normalizedPath(entries[index].path)
            if path.count != entries[index].path.count {
                entries[index].path = path
            }
        }
        if self.entries.isEmpty {
            self.entries = entries
        } else {
            self.entries.append(contentsOf: entries)
        }
    }

    private func normalizedPath(_ path: [UInt8]) throws(ManifestError) -> [UInt8] {
        guard let normalized = ManifestPath.normalized(path) else {
            throw ManifestError(
                file: source.name, entry: PathDisplay.text(path),
                message: "the path leaves the tree (absolute, or with a \"..\" component), so it has no place in a manifest")
        }
        return normalized
    }

    /// The manifest.
    ///
    /// - Returns: The manifest of the entries added, with the folders their
    ///   paths imply and every digest computed.
    /// - Throws: ``ManifestError`` naming the entry when two entries have
    ///   one path (unless the last is to win), when an entry lies below
    ///   something that is not a directory, or when the implied folders
    ///   pass the entry limit.
    public consuming func finish() throws(ManifestError) -> Manifest {
        var entries: [ManifestEntry] = []
        swap(&entries, &self.entries)
        Self.sort(&entries)
        let repeated = repeatedPaths == .lastWins ? Self.keepLastOfEachPath(&entries) : []
        entries = try completed(consume entries)
        Self.computeDigests(&entries)
        return Manifest(sortedEntries: entries, source: source, timeResolution: timeResolution(of: entries), repeatedPaths: repeated)
    }

    /// Removes, in place, every entry of the sorted `entries` but the last
    /// added of each path (the sort keeps the order entries were added in
    /// among equal paths: it is stable); returns the paths that had more
    /// than one, but for a directory only ever stored as a directory.
    private static func keepLastOfEachPath(_ entries: inout [ManifestEntry]) -> [[UInt8]] {
        var repeated: [[UInt8]] = []
        var kept = 0
        for index in entries.indices {
            if kept > 0, entries[kept - 1].path == entries[index].path {
                let sameDirectory = entries[kept - 1].kind == .directory && entries[index].kind == .directory
                if !sameDirectory, repeated.last != entries[index].path { repeated.append(entries[index].path) }
                kept -= 1
            }
            if kept != index { entries.swapAt(kept, index) }
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        return repeated
    }

    /// Sorts `entries` in manifest order, stably: their positions are
    /// sorted (two halves on two cores, each with the standard library's
    /// stable sort, then merged, ties from the first half first), then the
    /// entries moved along the cycles of that permutation, so that no second
    /// array of entries is ever made. Positions are 32 bits: half the memory.
    private static func sort(_ entries: inout [ManifestEntry]) {
        var order = Array(0..<Int32(entries.count))
        entries.withUnsafeBufferPointer { entries in
            let precedes = { (lhs: Int32, rhs: Int32) in ManifestPath.precedes(entries[Int(lhs)].path, entries[Int(rhs)].path) }
            guard order.count >= 4096 else {
                order.sort(by: precedes)
                return
            }
            let middle = order.count / 2
            order.withUnsafeMutableBufferPointer { order in
                let shared = SharedMemory(buffer: (order: order, entries: entries))
                WorkerThreads.perform(iterations: 2) { half in
                    let (order, entries) = shared.buffer
                    var part = UnsafeMutableBufferPointer(rebasing: half == 0 ? order[..<middle] : order[middle...])
                    part.sort { ManifestPath.precedes(entries[Int($0)].path, entries[Int($1)].path) }
                }
            }
            order = Self.merge(order[..<middle], order[middle...], by: precedes)
        }
        entries.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            // Each position is done once it holds its entry (order[position] == position).
            for start in order.indices where order[start] != start {
                let first = (base + start).move()
                var position = start
                while true {
                    let source = Int(order[position])
                    order[position] = Int32(position)
                    if source == start {
                        (base + position).initialize(to: consume first)
                        break
                    }
                    (base + position).moveInitialize(from: base + source, count: 1)
                    position = source
                }
            }
        }
    }

    /// Two sorted runs as one.
    private static func merge(_ lhs: ArraySlice<Int32>, _ rhs: ArraySlice<Int32>, by precedes: (Int32, Int32) -> Bool) -> [Int32] {
        var merged: [Int32] = []
        merged.reserveCapacity(lhs.count + rhs.count)
        var left = lhs.startIndex, right = rhs.startIndex
        while left < lhs.endIndex, right < rhs.endIndex {
            // Ties take the left run first, as a stable sort would.
            if precedes(rhs[right], lhs[left]) {
                merged.append(rhs[right])
                right += 1
            } else {
                merged.append(lhs[left])
                left += 1
            }
        }
        merged.append(contentsOf: lhs[left...])
        merged.append(contentsOf: rhs[right...])
        return merged
    }

    /// The sorted `entries` with the root and every implied directory
    /// added, each just before the first entry below it. Throws for two
    /// entries at one path and for an entry below something that is not a
    /// directory.
    private func completed(_ entries: consuming [ManifestEntry]) throws(ManifestError) -> [ManifestEntry] {
        var additions: [(position: Int, entry: ManifestEntry)] = []
        // The directories that hold the current position, root first.
        var ancestors: [[UInt8]] = []
        // The folders added so far that paths imply, the root not among them.
        var implied = 0
        if entries.first?.path.isEmpty != true {
            additions.append((0, ManifestEntry(path: [], kind: .directory)))
            ancestors.append([])
        }
        for index in entries.indices {
            let path = entries[index].path
            if index > 0, entries[index - 1].path == path {
                throw ManifestError(file: source.name, entry: entries[index].displayPath, message: "the tree has two entries at this path")
            }
            while let innermost = ancestors.last, path.isEmpty || !ManifestPath.isWithin(path, innermost) {
                ancestors.removeLast()
            }
            if !path.isEmpty {
                let missing = try missingDirectories(below: ancestors.last, toEntryAt: index, of: entries)
                implied += missing.count
                if implied > maxEntries - entries.count {
                    throw ManifestError(
                        file: source.name, entry: entries[index].displayPath,
                        message: "with the folders that its path and those before it imply, the tree has more than the limit of \(maxEntries) entries",
                        limit: .maxEntries)
                }
                for directory in missing {
                    additions.append((index, ManifestEntry(path: directory, kind: .directory)))
                    ancestors.append(directory)
                }
            }
            if entries[index].kind == .directory {
                ancestors.append(path)
            }
        }
        guard !additions.isEmpty else { return entries }
        // Inserted in place, from the end: the entries past each addition's
        // position move up by the additions still to place. A second array
        // of entries would double the memory of a large manifest.
        var result = consume entries
        let count = result.count
        result.append(contentsOf: additions.lazy.map(\.entry))
        result.withUnsafeMutableBufferPointer { buffer in
            var shift = additions.count
            var end = count
            for (position, directory) in additions.reversed() {
                for index in stride(from: end - 1, through: position, by: -1) {
                    buffer.swapAt(index, index + shift)
                }
                shift -= 1
                buffer[position + shift] = directory
                end = position
            }
        }
        return result
    }

    /// The paths of the directories between `innermost` (the deepest
    /// directory already in place above the entry at `index`, `nil` when
    /// not even the root is one) and that entry, outermost first; none when
    /// `innermost` is its parent. Throws when one of them is the entry
    /// before, which is not a directory, or the root. Entries are read in
    /// place, never copied: this runs for every entry.
    private func missingDirectories(
        below innermost: [UInt8]?, toEntryAt index: Int, of entries: [ManifestEntry]
    ) throws(ManifestError) -> [[UInt8]] {
        let path = entries[index].path
        var missing: [[UInt8]] = []
        var end = path.lastIndex(of: ManifestPath.separator) ?? 0
        while end > (innermost?.count ?? -1) {
            guard end > 0 else {
                throw ManifestError(
                    file: source.name, entry: entries[index].displayPath, message: "the tree's root is not a directory, so nothing can lie below it")
            }
            let directory = Array(path[..<end])
            if index > 0, entries[index - 1].path == directory {
                throw ManifestError(
                    file: source.name, entry: entries[index].displayPath,
                    message: "the entry lies below \"\(entries[index - 1].displayPath)\", which is a \(entries[index - 1].kind.rawValue), not a directory")
            }
            missing.append(directory)
            end = path[..<end].lastIndex(of: ManifestPath.separator) ?? 0
        }
        return missing.reversed()
    }

    /// Sets each entry's tree digest (when every file below it was hashed)
    /// and metadata digest. First the digests of the entries that are not
    /// directories, which depend on the entry alone; then those of the
    /// directories. For those the tree is cut into subtrees (one entry and
    /// everything below it) of at most a quarter of a core's share of the
    /// entries, each done in one pass in manifest order, in which each
    /// directory's digests take its children as they come and are finished
    /// when its subtree ends; last the directories above those subtrees,
    /// deepest first. Both passes run on every core.
    private static func computeDigests(_ entries: inout [ManifestEntry]) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        entries.withUnsafeMutableBufferPointer { buffer in
            let shared = SharedMemory(buffer: buffer)
            let slices = min(cores, max(1, buffer.count / 4096))
            WorkerThreads.perform(iterations: slices) { slice in
                shared.computeLeafDigests(slice: slice, of: slices)
            }
            guard buffer[0].kind == .directory else { return }
            let largest = max(1024, buffer.count / (4 * max(1, cores)))
            var subtrees = [buffer.indices]
            // Each directory cut, with its children's subtrees. Cutting
            // stops after a few dozen: a long chain of single directories
            // would otherwise cost a scan of its subtree for each.
            var cut: [(index: Int, children: [Range<Int>])] = []
            while cut.count < 64, let biggest = subtrees.indices.max(by: { subtrees[$0].count < subtrees[$1].count }),
                subtrees[biggest].count > largest {
                let subtree = subtrees.remove(at: biggest)
                let children = shared.childSubtrees(of: subtree)
                cut.append((subtree.lowerBound, children))
                subtrees += children.filter { buffer[$0.lowerBound].kind == .directory }
            }
            let biggestFirst = subtrees.sorted { $0.count > $1.count }
            WorkerThreads.perform(iterations: biggestFirst.count) { subtree in
                shared.computeDirectoryDigests(biggestFirst[subtree])
            }
            // A directory is cut after its parent: in reverse, children come first.
            for (index, children) in cut.reversed() {
                var digests = TreeDigest.Directory(buffer[index])
                for child in children.lazy.map(\.lowerBound) {
                    digests.add(name: buffer[child].name, tree: buffer[child].treeDigest, metadata: buffer[child].metadataDigest!)
                    if buffer[child].kind != .directory { buffer[child].treeDigest = nil }
                }
                (buffer[index].treeDigest, buffer[index].metadataDigest) = digests.finalize()
            }
        }
    }

    /// See ``Manifest/timeResolution``.
    private func timeResolution(of entries: [ManifestEntry]) -> Int64 {
        var resolution: Int64 = 1_000_000_000
        var hasTimes = false
        var allEvenSeconds = true
        for index in entries.indices {
            guard let modified = entries[index].modified else { continue }
            hasTimes = true
            allEvenSeconds = allEvenSeconds && modified.seconds % 2 == 0
            while resolution > 1, Int64(modified.nanoseconds) % resolution != 0 {
                resolution /= 10
            }
        }
        if resolution == 1_000_000_000, evenSecondsMeanDOSTimes, hasTimes, allEvenSeconds {
            return 2_000_000_000
        }
        return resolution
    }
}

/// The entries, whose digests threads set, each for its own part.
fileprivate extension SharedMemory where Buffer == UnsafeMutableBufferPointer<ManifestEntry> {
    /// Sets the metadata digest of each entry of the slice that is not a
    /// directory, and its tree digest, which waits in ``ManifestEntry/treeDigest``
    /// until its directory's digest takes it.
    func computeLeafDigests(slice: Int, of slices: Int) {
        let range = buffer.count * slice / slices..<buffer.count * (slice + 1) / slices
        for place in buffer.baseAddress! + range.lowerBound..<buffer.baseAddress! + range.upperBound {
            // Moved out and back: an entry read from the buffer in place
            // would be copied (its arrays retained and released).
            var entry = place.move()
            if entry.kind != .directory {
                entry.treeDigest = TreeDigest.node(entry)
                entry.metadataDigest = TreeDigest.metadata(entry)
            }
            place.initialize(to: consume entry)
        }
    }

    /// The subtrees of the children of the directory whose subtree is
    /// `subtree`, in order: a child's ends where a path is no longer within it.
    func childSubtrees(of subtree: Range<Int>) -> [Range<Int>] {
        var children: [Range<Int>] = []
        var child = subtree.lowerBound + 1
        while child < subtree.upperBound {
            var end = child + 1
            if buffer[child].kind == .directory {
                while end < subtree.upperBound, ManifestPath.isWithin(buffer[end].path, buffer[child].path) {
                    end += 1
                }
            }
            children.append(child..<end)
            child = end
        }
        return children
    }

    /// Sets the digests of the directories of the subtree `range` (one
    /// entry and everything below it), and clears the tree digests its
    /// other entries held for them.
    func computeDirectoryDigests(_ range: Range<Int>) {
        // The directories that hold the current entry, outermost first.
        var open: [(index: Int, digests: TreeDigest.Directory)] = []
        func closeInnermost() {
            let (index, digests) = open.removeLast()
            (buffer[index].treeDigest, buffer[index].metadataDigest) = digests.finalize()
            if !open.isEmpty {
                open[open.count - 1].digests.add(name: buffer[index].name, tree: buffer[index].treeDigest, metadata: buffer[index].metadataDigest!)
            }
        }
        for index in range {
            while let innermost = open.last, !ManifestPath.isWithin(buffer[index].path, buffer[innermost.index].path) {
                closeInnermost()
            }
            if buffer[index].kind == .directory {
                open.append((index, TreeDigest.Directory(buffer[index])))
            } else if !open.isEmpty {
                open[open.count - 1].digests.add(name: buffer[index].name, tree: buffer[index].treeDigest, metadata: buffer[index].metadataDigest!)
                // Only a directory keeps a tree digest.
                buffer[index].treeDigest = nil
            }
        }
        while !open.isEmpty {
            closeInnermost()
        }
    }
}
