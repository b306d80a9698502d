/// The shortest edit from one sequence of lines to another (Myers' O(ND)
/// algorithm, in its linear-space form: the middle snake, then each half),
/// as runs of kept, removed and added lines.
///
/// Lines are compared as bytes, each with its newline, so a last line
/// without one differs from the same text with one, as `diff` sees them.
public struct LineDiff: Sendable {
    /// A run of lines: `count` lines from `oldStart` in the old text and
    /// `newStart` in the new (0-based), kept, removed (new side empty) or
    /// added (old side empty).
    public struct Run: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            case kept, removed, added
        }

        public var kind: Kind
        public var oldStart: Int
        public var newStart: Int
        public var count: Int
    }

    /// The old text's lines, each with its newline (the last may lack one).
    public let oldLines: [ArraySlice<UInt8>]
    /// The new text's lines.
    public let newLines: [ArraySlice<UInt8>]
    /// The runs in order, covering both texts; adjacent runs differ in kind.
    public let runs: [Run]

    /// The edit from `old` to `new`.
    ///
    /// - Parameters:
    ///   - old: The text before, as bytes.
    ///   - new: The text after, as bytes.
    public init(old: [UInt8], new: [UInt8]) {
        oldLines = Self.lines(of: old)
        newLines = Self.lines(of: new)
        // Each distinct line becomes a number, so the search compares integers.
        var numbers: [ArraySlice<UInt8>: Int] = [:]
        var search = Search(a: Self.numbered(oldLines, &numbers), b: Self.numbered(newLines, &numbers))
        var builder = RunBuilder()
        search.compare(0..<oldLines.count, 0..<newLines.count, into: &builder)
        runs = builder.runs
    }

    /// The edited lines: how many removed and how many added.
    public var changedLineCounts: (removed: Int, added: Int) {
        runs.reduce(into: (0, 0)) { counts, run in
            switch run.kind {
            case .kept: break
            case .removed: counts.0 += run.count
            case .added: counts.1 += run.count
            }
        }
    }

    /// `bytes` cut after each newline; the last line may lack one.
    static func lines(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(bytes[start...newline])
            start = newline + 1
        }
        if start < bytes.endIndex { lines.append(bytes[start...]) }
        return lines
    }

    private static func numbered(_ lines: [ArraySlice<UInt8>], _ numbers: inout [ArraySlice<UInt8>: Int]) -> [Int] {
        lines.map { line in
            if let number = numbers[line] { return number }
            numbers[line] = numbers.count
            return numbers.count - 1
        }
    }
}

extension LineDiff {
    /// Collects kept, removed and added lines into runs, merging neighbours.
    struct RunBuilder {
        var runs: [Run] = []

        mutating func append(_ kind: Run.Kind, oldStart: Int, newStart: Int, count: Int) {
            guard count > 0 else { return }
            if var last = runs.last, last.kind == kind,
               last.oldStart + (kind == .added ? 0 : last.count) == oldStart,
               last.newStart + (kind == .removed ? 0 : last.count) == newStart {
                last.count += count
                runs[runs.count - 1] = last
            } else {
                runs.append(Run(kind: kind, oldStart: oldStart, newStart: newStart, count: count))
            }
        }
    }

    /// The search over two sequences of line numbers, with its two frontier
    /// arrays reused across the recursion.
    struct Search {
        let a: [Int]
        let b: [Int]
        /// The furthest x reached on each diagonal, forward and backward,
        /// indexed by diagonal + `offset`.
        var forward: [Int]
        var backward: [Int]
        let offset: Int

        init(a: [Int], b: [Int]) {
            self.a = a
            self.b = b
            offset = (a.count + b.count + 1) / 2 + 1
            forward = Array(repeating: 0, count: 2 * offset + 1)
            backward = forward
        }

        /// Appends the runs that turn `a[old]` into `b[new]`.
        mutating func compare(_ old: Range<Int>, _ new: Range<Int>, into builder: inout RunBuilder) {
            var old = old, new = new
            // Common head and tail are kept as they are.
            var head = 0
            while head < old.count, head < new.count, a[old.lowerBound + head] == b[new.lowerBound + head] { head += 1 }
            builder.append(.kept, oldStart: old.lowerBound, newStart: new.lowerBound, count: head)
            old = (old.lowerBound + head)..<old.upperBound
            new = (new.lowerBound + head)..<new.upperBound
            var tail = 0
            while tail < old.count, tail < new.count, a[old.upperBound - 1 - tail] == b[new.upperBound - 1 - tail] { tail += 1 }
            let tailRange = (old.upperBound - tail, new.upperBound - tail)
            old = old.lowerBound..<(old.upperBound - tail)
            new = new.lowerBound..<(new.upperBound - tail)

            if old.isEmpty || new.isEmpty {
                builder.append(.removed, oldStart: old.lowerBound, newStart: new.lowerBound, count: old.count)
                builder.append(.added, oldStart: old.upperBound, newStart: new.lowerBound, count: new.count)
            } else if let snake = middleSnake(old, new) {
                compare(old.lowerBound..<snake.x, new.lowerBound..<snake.y, into: &builder)
                builder.append(.kept, oldStart: snake.x, newStart: snake.y, count: snake.length)
                compare((snake.x + snake.length)..<old.upperBound, (snake.y + snake.length)..<new.upperBound, into: &builder)
            } else {
                builder.append(.removed, oldStart: old.lowerBound, newStart: new.lowerBound, count: old.count)
                builder.append(.added, oldStart: old.upperBound, newStart: new.lowerBound, count: new.count)
            }
            builder.append(.kept, oldStart: tailRange.0, newStart: tailRange.1, count: tail)
        }

        /// The middle snake of a shortest edit of `a[old]` into `b[new]`
        /// (both non-empty, with different first and last lines): where it
        /// starts and how many lines it keeps. Forward paths run from the
        /// start on diagonals k = x - y; backward paths from the end on
        /// diagonals measured from it, c = (n - x) - (m - y), which is
        /// forward diagonal delta - c. Nil when the edit is longer than
        /// ``costLimit`` both ways: the stretch is then replaced whole.
        mutating func middleSnake(_ old: Range<Int>, _ new: Range<Int>) -> (x: Int, y: Int, length: Int)? {
            let n = old.count, m = new.count
            let delta = n - m
            let odd = delta & 1 != 0
            let limit = min((n + m + 1) / 2, Self.costLimit)
            forward[offset + 1] = 0
            backward[offset + 1] = 0
            for d in 0...limit {
                for k in stride(from: -d, through: d, by: 2) {
                    var x = k == -d || (k != d && forward[offset + k - 1] < forward[offset + k + 1])
                        ? forward[offset + k + 1] : forward[offset + k - 1] + 1
                    var y = x - k
                    let start = (x, y)
                    while x < n, y < m, a[old.lowerBound + x] == b[new.lowerBound + y] { x += 1; y += 1 }
                    forward[offset + k] = x
                    let c = delta - k
                    if odd, c >= -(d - 1), c <= d - 1, x + backward[offset + c] >= n {
                        return (old.lowerBound + start.0, new.lowerBound + start.1, x - start.0)
                    }
                }
                for c in stride(from: -d, through: d, by: 2) {
                    var x = c == -d || (c != d && backward[offset + c - 1] < backward[offset + c + 1])
                        ? backward[offset + c + 1] : backward[offset + c - 1] + 1
                    var y = x - c
                    let start = (x, y)
                    while x < n, y < m, a[old.upperBound - 1 - x] == b[new.upperBound - 1 - y] { x += 1; y += 1 }
                    backward[offset + c] = x
                    let k = delta - c
                    if !odd, k >= -d, k <= d, x + forward[offset + k] >= n {
                        // In forward coordinates the snake runs from (n - x, m - y) to (n - start).
                        return (old.lowerBound + n - x, new.lowerBound + m - y, x - start.0)
                    }
                }
            }
            return nil
        }

        /// How far each way the search for a middle snake goes before it
        /// gives up minimality: texts with nothing in common cost
        /// O((n + m) * d), and this bounds d, as GNU diff's heuristic does.
        static let costLimit = 1024
    }
}
