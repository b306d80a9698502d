import Foundation
import Testing
import TestSupport

/// `wrapinspect diff` finds files that moved and changed as `git diff -M`
/// finds renames: on the same pair of trees, the moves and their
/// similarity in percent are git's (`git diff --no-index -M --name-status`).
@Suite("wrapinspect diff: moves of changed files, against git")
struct SimilarMoveTests {
    /// Forty lines of seeded random words, for a file's text.
    static func lines(_ count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let words = ["harbour", "tram", "tile", "river", "bridge", "fado", "custard", "hill", "azulejo", "ferry", "market", "castle"]
        return (0..<count).map { index in
            "\(index): " + (0..<6).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
        }
    }

    /// `lines` with the lines at `indices` replaced.
    static func changed(_ lines: [String], at indices: some Sequence<Int>) -> [String] {
        var copy = lines
        for index in indices { copy[index] = "changed \(index) " + String(repeating: "x", count: 30) }
        return copy
    }

    static func text(_ lines: [String], separator: String = "\n") -> String {
        lines.joined(separator: separator) + separator
    }

    /// The moves `git diff -M` finds from `A` to `B` in `directory`, as `OLD -> NEW (percent)`, sorted.
    static func gitMoves(in directory: TemporaryDirectory, threshold: String = "") throws -> [String] {
        let result = try ChildProcess.run(
            "/usr/bin/git", ["diff", "--no-index", "-M\(threshold)", "--name-status", "A", "B"], in: directory.url,
            environment: ["HOME": directory.url.path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_BASENAME_FACTOR": nil])
        #expect(result.status == 1, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 3, fields[0].hasPrefix("R") else { return nil }
            return "\(fields[1].dropFirst(2)) -> \(fields[2].dropFirst(2)) (\(Int(fields[0].dropFirst())!))"
        }.sorted()
    }

    /// The moves `wrapinspect diff --json` finds, as ``gitMoves(in:)`` writes them.
    static func ourMoves(in directory: TemporaryDirectory, _ extra: [String] = []) throws -> (moves: [String], changes: [[String: Any]]) {
        let result = try WrapInspectProcess.run(["diff", "--json"] + extra + ["A", "B"], in: directory.url)
        #expect(result.status == 1, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 2)
        let changes = try #require(object["changes"] as? [[String: Any]])
        let moves = changes.filter { $0["change"] as? String == "moved" }.map { move in
            "\(move["path"] as? String ?? "?") -> \(move["to"] as? String ?? "?") (\(move["similarity"] as? Int ?? -1))"
        }
        return (moves.sorted(), changes)
    }

    /// One file moved with a fifth of its lines changed, one moved and
    /// turned to CRLF line ends (git skips a CR before LF in text), a binary
    /// file moved with bytes changed: moves at git's scores; one moved with
    /// over half its lines changed: removed and added, in both.
    @Test func aboveAndBelowTheThresholdAsGitScoresThem() throws {
        let directory = try TemporaryDirectory()
        let story = Self.lines(40, seed: 1), recipe = Self.lines(30, seed: 2), draft = Self.lines(40, seed: 3)
        try Disk.write(Self.text(story), to: directory.appending("A/Entries/story.md"))
        try Disk.write(Self.text(Self.changed(story, at: [3, 9, 10, 20, 21, 22, 30, 39])), to: directory.appending("B/Archive/2026/story.md"))
        try Disk.write(Self.text(recipe), to: directory.appending("A/recipe.txt"))
        try Disk.write(Self.text(Self.changed(recipe, at: [0]), separator: "\r\n"), to: directory.appending("B/Notes/recipe-crlf.txt"))
        try Disk.write(Self.text(draft), to: directory.appending("A/draft.md"))
        try Disk.write(Self.text(Self.changed(draft, at: 0..<22)), to: directory.appending("B/final.md"))
        var random = SplitMix64(seed: 4)
        var image = random.bytes(6000)
        image[100] = 0
        try Disk.write(Data(image), to: directory.appending("A/image.bin"))
        for offset in stride(from: 500, to: 6000, by: 1000) { image[offset] ^= 0xFF }
        try Disk.write(Data(image), to: directory.appending("B/Images/photo.bin"))

        let git = try Self.gitMoves(in: directory)
        // What the test stands on: git pairs three, with scores under 100, and not the draft.
        #expect(git.count == 3 && git.allSatisfy { !$0.hasSuffix("(100)") } && !git.contains { $0.hasPrefix("draft.md") }, "\(git)")
        let ours = try Self.ourMoves(in: directory)
        #expect(ours.moves == git)
        let draftChange = ours.changes.first { $0["path"] as? String == "draft.md" }
        #expect(draftChange?["change"] as? String == "removed")

        // -M 100: exact moves only, as before.
        #expect(try Self.ourMoves(in: directory, ["-M", "100"]).moves.isEmpty)
        // A lower threshold takes the draft too, as git -M30% does.
        let low = try Self.ourMoves(in: directory, ["-M", "30"]).moves
        #expect(low.contains { $0.hasPrefix("draft.md -> final.md (") }, "\(low)")
        #expect(try low == Self.gitMoves(in: directory, threshold: "30%"))
    }

    /// Three removed files and four added ones, several alike to one
    /// removed file, and a name kept on a file less alike than another:
    /// the same pairs as git, each file used once, best first.
    @Test func severalCandidatesPairAsGitPairsThem() throws {
        let directory = try TemporaryDirectory()
        let x = Self.lines(40, seed: 10), y = Self.lines(40, seed: 11), z = Self.lines(40, seed: 12)
        try Disk.write(Self.text(x), to: directory.appending("A/one/x.md"))
        try Disk.write(Self.text(y), to: directory.appending("A/one/y.md"))
        try Disk.write(Self.text(z), to: directory.appending("A/one/notes.md"))
        // Two added files alike to x: the closer one wins it.
        try Disk.write(Self.text(Self.changed(x, at: 0..<6)), to: directory.appending("B/two/x-close.md"))
        try Disk.write(Self.text(Self.changed(x, at: 0..<14)), to: directory.appending("B/two/x-far.md"))
        // y's lines with a third of z's: more alike to y.
        try Disk.write(Self.text(Array(y[0..<28]) + Array(z[0..<12])), to: directory.appending("B/two/mix.md"))
        // z under its own name, 60 % alike: under the same-name threshold (75 %), over 50 %.
        try Disk.write(Self.text(Self.changed(z, at: 0..<16)), to: directory.appending("B/three/notes.md"))

        let git = try Self.gitMoves(in: directory)
        #expect(git.count == 3 && git.contains { $0.hasPrefix("one/x.md -> two/x-close.md") }, "\(git)")
        #expect(try Self.ourMoves(in: directory).moves == git)
    }

    /// A moved and changed file shows as a move with its patch, headed by
    /// its old and new paths, in text and in JSON.
    @Test func aMovedChangedFileCarriesItsPatch() throws {
        let directory = try TemporaryDirectory()
        let story = Self.lines(20, seed: 20)
        try Disk.write(Self.text(story), to: directory.appending("A/Entries/story.md"))
        try Disk.write(Self.text(story + ["And the trams."]), to: directory.appending("B/Archive/story.md"))
        let text = try WrapInspectProcess.run(["diff", "-p", "A", "B"], in: directory.url)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let move = try #require(lines.firstIndex { $0.hasPrefix("R Entries/story.md -> Archive/story.md (") }, "\(text.stdout)")
        #expect(lines[move].contains("% similar, "), "\(lines[move])")
        #expect(Array(lines[(move + 1)...].prefix(2)) == ["--- a/Entries/story.md", "+++ b/Archive/story.md"])
        #expect(lines.contains("+And the trams."))

        let (_, changes) = try Self.ourMoves(in: directory, ["-p"])
        let moved = try #require(changes.first { $0["change"] as? String == "moved" })
        #expect((moved["old"] as? [String: Any])?["size"] as? Int == Self.text(story).utf8.count)
        let patch = try #require(moved["patch"] as? [String: Any])
        let hunks = try #require(patch["hunks"] as? [[String: Any]])
        #expect((hunks.last?["lines"] as? [String])?.last == "+And the trams.")
    }

    /// Over --rename-limit × --rename-limit removed and added files
    /// (1,000 by default, as git's), the changed file's move is not looked
    /// for, and a note says so; the exact move still is.
    @Test func overTheLimitOnlyExactMovesAreFound() throws {
        let directory = try TemporaryDirectory()
        for index in 0..<3 {
            try Disk.write("old \(index)\n", to: directory.appending("A/old/\(index)"))
            try Disk.write("new \(index)\n", to: directory.appending("B/new/\(index)"))
        }
        let story = Self.lines(20, seed: 30)
        try Disk.write(Self.text(story), to: directory.appending("A/story.md"))
        try Disk.write(Self.text(story + ["more"]), to: directory.appending("B/moved/story.md"))
        try Disk.write("the same\n", to: directory.appending("A/same.txt"))
        try Disk.write("the same\n", to: directory.appending("B/moved/same.txt"))
        // 4 × 4 unpaired files: over a limit of 3, within 4.
        let over = try WrapInspectProcess.run(["diff", "--rename-limit", "3", "A", "B"], in: directory.url)
        #expect(over.status == 1)
        #expect(over.stderr.contains("moves of changed files were not looked for"), "\(over.stderr)")
        #expect(over.stdoutLines.contains { $0.hasPrefix("R same.txt -> moved/same.txt") })
        #expect(over.stdoutLines.contains { $0.hasPrefix("- story.md ") })
        let within = try WrapInspectProcess.run(["diff", "--rename-limit", "4", "A", "B"], in: directory.url)
        #expect(within.stderr.isEmpty, "\(within.stderr)")
        #expect(within.stdoutLines.contains { $0.hasPrefix("R story.md -> moved/story.md (") }, "\(within.stdout)")
    }
}
