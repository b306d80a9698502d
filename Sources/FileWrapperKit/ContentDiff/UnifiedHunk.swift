/// One hunk of a unified diff, as `diff -u` and `git diff` print it: a
/// stretch of both texts with the changed lines and up to `context`
/// unchanged lines around them.
public struct UnifiedHunk: Sendable, Hashable {
    /// A line of the hunk: kept (` `), removed (`-`) or added (`+`), its
    /// bytes without the newline, and whether it had one.
    public struct Line: Sendable, Hashable {
        public var kind: LineDiff.Run.Kind
        public var text: ArraySlice<UInt8>
        public var endsWithNewline: Bool
    }

    /// The old text's first line in the hunk, 1-based, as the header shows
    /// it (for an empty side, the line before the hunk).
    public var oldStart: Int
    public var oldCount: Int
    public var newStart: Int
    public var newCount: Int
    public var lines: [Line]

    /// `@@ -1,3 +1,4 @@`, a count of 1 left out as `diff` leaves it out.
    public var header: String {
        func range(_ start: Int, _ count: Int) -> String { count == 1 ? "\(start)" : "\(start),\(count)" }
        return "@@ -\(range(oldStart, oldCount)) +\(range(newStart, newCount)) @@"
    }
}

extension LineDiff {
    /// The hunks of this edit with `context` unchanged lines around each
    /// change; changes closer than twice that share a hunk. Within a change,
    /// removed lines come before added ones, as `diff` prints them.
    ///
    /// - Parameter context: How many unchanged lines to show on each side of a change.
    /// - Returns: The hunks in order; empty when the texts are equal.
    public func hunks(context: Int = 3) -> [UnifiedHunk] {
        let blocks = changeBlocks()
        var hunks: [UnifiedHunk] = []
        var first = 0
        while first < blocks.count {
            var last = first
            while last + 1 < blocks.count, blocks[last + 1].old.lowerBound - blocks[last].old.upperBound <= 2 * context {
                last += 1
            }
            hunks.append(hunk(blocks[first...last], context: context))
            first = last + 1
        }
        return hunks
    }

    /// Each stretch of removed and added lines with no kept line inside.
    private func changeBlocks() -> [(old: Range<Int>, new: Range<Int>)] {
        var blocks: [(old: Range<Int>, new: Range<Int>)] = []
        var open: (old: Range<Int>, new: Range<Int>)?
        for run in runs {
            let old = run.oldStart..<(run.oldStart + (run.kind == .added ? 0 : run.count))
            let new = run.newStart..<(run.newStart + (run.kind == .removed ? 0 : run.count))
            if run.kind == .kept {
                if let block = open { blocks.append(block) }
                open = nil
            } else if let block = open {
                open = (block.old.lowerBound..<old.upperBound, block.new.lowerBound..<new.upperBound)
            } else {
                open = (old, new)
            }
        }
        if let block = open { blocks.append(block) }
        return blocks
    }

    private func hunk(_ blocks: ArraySlice<(old: Range<Int>, new: Range<Int>)>, context: Int) -> UnifiedHunk {
        let lead = min(context, blocks.first!.old.lowerBound)
        let oldStart = blocks.first!.old.lowerBound - lead
        let newStart = blocks.first!.new.lowerBound - lead
        let trail = min(context, oldLines.count - blocks.last!.old.upperBound)
        let oldEnd = blocks.last!.old.upperBound + trail
        let newEnd = blocks.last!.new.upperBound + trail

        var lines: [UnifiedHunk.Line] = []
        func add(_ kind: LineDiff.Run.Kind, _ line: ArraySlice<UInt8>) {
            let newline = line.last == UInt8(ascii: "\n")
            lines.append(UnifiedHunk.Line(kind: kind, text: newline ? line.dropLast() : line, endsWithNewline: newline))
        }
        var old = oldStart
        for block in blocks {
            for index in old..<block.old.lowerBound { add(.kept, oldLines[index]) }
            for index in block.old { add(.removed, oldLines[index]) }
            for index in block.new { add(.added, newLines[index]) }
            old = block.old.upperBound
        }
        for index in old..<oldEnd { add(.kept, oldLines[index]) }

        let oldCount = oldEnd - oldStart, newCount = newEnd - newStart
        return UnifiedHunk(oldStart: oldCount == 0 ? oldStart : oldStart + 1, oldCount: oldCount,
                           newStart: newCount == 0 ? newStart : newStart + 1, newCount: newCount, lines: lines)
    }
}

extension UnifiedHunk {
    /// The hunk as `diff -u` prints it, one line each without its newline:
    /// the header, then each line after its marker (` `, `-`, `+`), and
    /// `\ No newline at end of file` after a last line that has none.
    public var printedLines: [[UInt8]] {
        var printed = [Array(header.utf8)]
        for line in lines {
            let marker: UInt8 = switch line.kind {
            case .kept: UInt8(ascii: " ")
            case .removed: UInt8(ascii: "-")
            case .added: UInt8(ascii: "+")
            }
            printed.append([marker] + line.text)
            if !line.endsWithNewline { printed.append(Array("\\ No newline at end of file".utf8)) }
        }
        return printed
    }
}
