import BenchSupport
import Foundation

/// The archives of issue 20 whose shape, not size, made unpacking slow (a
/// 1,000-level path, deep chains, the 300-byte .tar.xz of eight chains,
/// directories taking turns at the ends of two deep chains, symlinks with
/// 2,048-name targets), written by `Tools/make-deep-archives.py` at the
/// attacker's sizes, each unpacked by ours and by bsdtar in the same rounds.
/// The target: ours within 2× bsdtar's time on each.
struct ShapeBenchmark {
    let options: Options
    let work: Work
    /// The archives, written afresh each run (the generator is deterministic).
    var archives: String { work.root + "/shapes" }
    var scratch: String { work.root + "/shapes-scratch" }

    static let generator = repositoryRoot.appendingPathComponent("Tools/make-deep-archives.py").path
    static let limit = 2.0

    /// An archive the generator wrote, with its summary line.
    struct Shape {
        let name: String
        let path: String
        let summary: String

        func field(_ key: String) -> String {
            Workload.field(key, of: summary) ?? "?"
        }
    }

    /// Measures every shape, and adds a fact per archive, a target per
    /// shape, the table and a note to `report`. In a full run this comes
    /// after w1's trees are removed, so it waits as w1 does (see
    /// `Work.waitForRecentRemovals()`): both tools make thousands of directories.
    func measure(into report: inout Report) throws {
        let shapes = try generate()
        work.waitForRecentRemovals()
        for shape in shapes { report.fact("shape", shape.summary) }
        try work.makeFresh(scratch)
        var table = Table("Hostile shapes of issue 20: unpack, ours against bsdtar (medians)", columns: [
            "shape", "archive bytes", "entries", "directories", "symlinks", "ours s", "bsdtar s", "ours ÷ bsdtar",
            "ours user s", "ours sys s", "bsdtar user s", "bsdtar sys s", "ours peak RSS MiB", "bsdtar peak RSS MiB",
        ], leading: 1)
        for shape in shapes {
            let (ours, bsdtar) = try measure(shape)
            report.targets.append(TargetResult(
                "unpack a hostile shape (issue 20)", workload: shape.name, ours: Formatting.seconds(ours.seconds) + " s",
                peer: "bsdtar: \(Formatting.seconds(bsdtar.seconds)) s", ratio: Formatting.ratio(ours.seconds, bsdtar.seconds),
                limit: String(format: "≤ %.2f", Self.limit), met: ours.seconds <= Self.limit * bsdtar.seconds))
            table.rows.append([
                shape.name, shape.field("bytes"), shape.field("entries"), shape.field("directories"), shape.field("symlinks"),
                Formatting.seconds(ours.seconds), Formatting.seconds(bsdtar.seconds), Formatting.ratio(ours.seconds, bsdtar.seconds),
                Formatting.seconds(ours.userSeconds), Formatting.seconds(ours.systemSeconds),
                Formatting.seconds(bsdtar.userSeconds), Formatting.seconds(bsdtar.systemSeconds),
                Formatting.mebibytes(ours.peakKiB * 1024), Formatting.mebibytes(bsdtar.peakKiB * 1024),
            ])
        }
        report.tables.append(table)
        report.notes.append(Self.note)
        try Shell.remove(scratch)
    }

    static let note = "Hostile shapes (issue 20): the archives of `Tools/make-deep-archives.py` at its default sizes (the attacker's), pax tars compressed with xz, written afresh each run, measured at least 6 minutes after a benchmark last removed many files (as w1 is); each unpacked by `wrapinspect unpack ARCHIVE DESTINATION` and by `bsdtar -xf ARCHIVE -C DESTINATION` (the directory made beforehand, untimed), each a process of `rusage-exec` with an untimed `sync` after it, the two interleaved: one untimed round, which checks that both trees hold the same names, kinds and symlink targets (`diff -r --no-dereference`), then as many timed rounds as w2 gets, odd ones with bsdtar first; each tree removed after its round, untimed. The target: ours at most 2× bsdtar's median time on each shape."

    /// Runs the generator into `archives` and reads its summary lines.
    private func generate() throws -> [Shape] {
        log("writing the hostile shapes into \(archives) ...")
        let output = try Shell.run("/usr/bin/env", ["python3", Self.generator, "--out", archives])
        return output.split(separator: "\n").map { line in
            let words = line.split(separator: " ")
            return Shape(name: String(words[0]), path: String(words[1]), summary: String(line))
        }
    }

    /// The medians of ours and bsdtar unpacking `shape`: one untimed round
    /// that checks the trees against each other, then the timed ones.
    private func measure(_ shape: Shape) throws -> (ours: Sample, bsdtar: Sample) {
        let repetitions = options.common.largeRepetitions
        log("shape \(shape.name): 1 + \(repetitions) rounds of ours and bsdtar ...")
        var samples: [Bool: [Sample]] = [:]
        for round in 0...repetitions {
            let trees = [true: "\(scratch)/\(shape.name)-ours-\(round)", false: "\(scratch)/\(shape.name)-bsdtar-\(round)"]
            for isOurs in round % 2 == 0 ? [true, false] : [false, true] {
                let tree = trees[isOurs]!
                let command = isOurs ? [options.wrapinspect, "unpack", shape.path, tree] : ["bsdtar", "-xf", shape.path, "-C", tree]
                if !isOurs { try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: false) }
                let sample = try Benchmark.measureWithSync(command, in: scratch)
                if round > 0 { samples[isOurs, default: []].append(sample) }
            }
            if round == 0 {
                do {
                    try Shell.run("/usr/bin/diff", ["-rq", "--no-dereference", trees[true]!, trees[false]!])
                } catch {
                    throw BenchError("shape \(shape.name): our tree \(trees[true]!) differs from bsdtar's \(trees[false]!)")
                }
            }
            for tree in trees.values { try Shell.remove(tree) }
        }
        return (Sample.median(of: samples[true]!), Sample.median(of: samples[false]!))
    }
}
