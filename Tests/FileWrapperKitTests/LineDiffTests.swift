import Foundation
import Testing
import TestSupport
@testable import FileWrapperKit

/// Our line diff against GNU diff: the same hunks where the shortest edit
/// is unique, an edit as short as `diff --minimal`'s everywhere, and a
/// patch that `patch` applies to give the new text.
@Suite(.startsProcesses) struct LineDiffTests {
    /// Our patch of `old` into `new`, with `diff -u`'s file header.
    static func patch(_ old: [UInt8], _ new: [UInt8], context: Int = 3) -> [UInt8] {
        var text = Array("--- a\n+++ b\n".utf8)
        for hunk in LineDiff(old: old, new: new).hunks(context: context) {
            for line in hunk.printedLines { text += line + [UInt8(ascii: "\n")] }
        }
        return text
    }

    /// GNU diff's hunks (`diff -u --minimal`), without its two header lines.
    static func gnuHunks(_ old: [UInt8], _ new: [UInt8], context: Int = 3, in directory: TemporaryDirectory) throws -> [UInt8] {
        let a = directory.appending("a"), b = directory.appending("b")
        try Data(old).write(to: a)
        try Data(new).write(to: b)
        let result = try ChildProcess.run("/usr/bin/diff", ["--minimal", "-U", String(context), a.path, b.path])
        #expect(result.status == (old == new ? 0 : 1), "\(result.stderr)")
        let lines = result.stdoutBytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        return Array(lines.dropFirst(2).joined(separator: [UInt8(ascii: "\n")]))
    }

    /// Lines "1\n" through "N\n", with the lines in `changed` replaced.
    static func numbered(_ count: Int, changing changed: Set<Int> = []) -> String {
        (1...count).map { (number: Int) -> String in changed.contains(number) ? "changed\n" : "\(number)\n" }.joined()
    }

    static let cases: [(String, String, String)] = [
        ("an insertion at the start", "b\nc\n", "a\nb\nc\n"),
        ("a deletion at the end", "a\nb\nc\n", "a\nb\n"),
        ("a new last line without a newline", "a\nb\n", "a\nb\nc"),
        ("a newline added at the end", "a\nb", "a\nb\n"),
        ("from empty", "", "x\ny\n"),
        ("to empty", "x\ny\n", ""),
        ("two changes far apart", numbered(20), numbered(20, changing: [2, 18])),
        ("two changes that share a hunk", numbered(12), numbered(12, changing: [3, 9])),
    ]

    @Test(arguments: cases)
    func hunksAreGNUDiffs(case name: String, old: String, new: String) throws {
        let directory = try TemporaryDirectory()
        let ours = Self.patch(Array(old.utf8), Array(new.utf8)).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let gnu = try Self.gnuHunks(Array(old.utf8), Array(new.utf8), in: directory)
        #expect(Array(ours.dropFirst(2).joined(separator: [UInt8(ascii: "\n")])) == gnu, "\(name)")
    }

    /// Seeded random texts over a few distinct lines, so that lines repeat
    /// and shortest edits are many: ours is as short as GNU's minimal one,
    /// and applies.
    @Test func randomEditsAreMinimalAndApply() throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 26)
        let words = ["alpha\n", "beta\n", "gamma\n", "delta\n", "{\n", "}\n", "\n"]
        for round in 0..<TestSizes.pick(full: 60, reduced: 15) {
            let old = (0..<Int.random(in: 0...40, using: &random)).map { _ in words.randomElement(using: &random)! }
            var new = old
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let at = Int.random(in: 0...new.count, using: &random)
                if Bool.random(using: &random), at < new.count { new.remove(at: at) } else { new.insert(words.randomElement(using: &random)!, at: at) }
            }
            let (oldBytes, newBytes) = (Array(old.joined().utf8), Array(new.joined().utf8))
            let diff = LineDiff(old: oldBytes, new: newBytes)
            let counts = diff.changedLineCounts
            let gnu = try Self.gnuHunks(oldBytes, newBytes, in: directory).split(separator: UInt8(ascii: "\n"))
            #expect(counts.removed == gnu.filter { $0.first == UInt8(ascii: "-") }.count, "round \(round)")
            #expect(counts.added == gnu.filter { $0.first == UInt8(ascii: "+") }.count, "round \(round)")

            let file = directory.appending("target"), patchFile = directory.appending("change.patch")
            try Data(oldBytes).write(to: file)
            try Data(Self.patch(oldBytes, newBytes)).write(to: patchFile)
            let applied = try ChildProcess.run("/usr/bin/patch", ["--quiet", "--force", file.path, patchFile.path])
            #expect(applied.status == 0, "round \(round): \(applied.stdout)\(applied.stderr)")
            #expect(try Array(Data(contentsOf: file)) == newBytes, "round \(round)")
        }
    }

    /// Texts with nothing in common cost the search O((n + m) * d): past
    /// its limit it replaces the stretch whole, still a patch that applies.
    @Test func textsWithNothingInCommonEndAsOneReplacement() {
        let old = Array((0..<3000).map { "old \($0)\n" }.joined().utf8)
        let new = Array((0..<3000).map { "new \($0)\n" }.joined().utf8)
        let diff = LineDiff(old: old, new: new)
        #expect(diff.changedLineCounts == (3000, 3000))
        #expect(diff.runs.map(\.kind) == [.removed, .added])
    }

    @Test func aLastLineWithoutANewlineDiffersFromOneWith() {
        let diff = LineDiff(old: Array("a\nb".utf8), new: Array("a\nb\n".utf8))
        #expect(diff.changedLineCounts == (1, 1))
        let hunk = diff.hunks().first
        #expect(hunk?.printedLines.map { String(decoding: $0, as: UTF8.self) } == [
            "@@ -1,2 +1,2 @@", " a", "-b", "\\ No newline at end of file", "+b",
        ])
    }

    @Test func binaryContentsAreSummarizedAtTheFirstDifference() throws {
        let old: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
        var new = old
        new[5] = 0xFF
        let difference = try #require(ByteDifference(old: old, new: new))
        #expect(difference.offset == 5)
        #expect(Array(difference.oldBytes) == [5, 6, 7, 8, 9, 10, 11])
        #expect(Array(difference.newBytes) == [0xFF, 6, 7, 8, 9, 10, 11])
        #expect(ByteDifference(old: old, new: old) == nil)
        #expect(ByteDifference(old: [1, 2], new: [1, 2, 3])?.offset == 2)
        #expect(!ByteDifference.isText(old))
        #expect(ByteDifference.isText(Array("plain\ntext\n".utf8)))
    }
}
