import BenchSupport
import Foundation

/// `wrapinspect diff -p` of issue 26 beside the tools a user would run to
/// see what changed between two trees: w1 against a copy with 100 of its
/// text files edited (a line appended), and w2 against a copy with one
/// byte changed in one of its 128 MiB files. Every tool reads both trees
/// whole; ours also shows each changed file's patch, within its 1 MiB
/// `--max-diff-bytes`, so its memory must not grow with the files.
struct DiffBenchmark {
    let options: Options
    let work: Work
    var scratch: String { work.root + "/diff-scratch" }

    /// Measures each workload's edited copy, and adds a table and a note.
    func measure(_ workloads: [Workload], into report: inout Report) throws {
        try work.makeFresh(scratch)
        var table = Table("diff of a tree and its edited copy (issue 26), medians", columns: [
            "workload", "edit", "ours s", "git diff --stat s", "diff -r s", "ours ÷ git", "ours ÷ diff -r",
            "ours peak RSS MiB", "git peak RSS MiB", "diff -r peak RSS MiB",
        ], leading: 2)
        for workload in workloads {
            let (edited, edit) = try editedCopy(of: workload)
            let commands: [(String, [String])] = [
                ("ours", [options.wrapinspect, "diff", "-p", workload.path, edited]),
                ("git", ["git", "diff", "--no-index", "--stat", workload.path, edited]),
                ("diff", ["diff", "-r", "--no-dereference", workload.path, edited]),
            ]
            let repetitions = options.common.repetitions(of: workload.name)
            log("diff \(workload.name.rawValue): 1 + \(repetitions) rounds of ours, git and diff -r ...")
            var samples: [String: [Sample]] = [:]
            for round in 0...repetitions {
                for (tool, command) in round % 2 == 0 ? commands : commands.reversed() {
                    let sample = try Shell.measure(command, in: scratch, status: 1)
                    if round > 0 { samples[tool, default: []].append(sample) }
                }
            }
            let (ours, git, diff) = (Sample.median(of: samples["ours"]!), Sample.median(of: samples["git"]!), Sample.median(of: samples["diff"]!))
            table.rows.append([
                workload.name.rawValue, edit, Formatting.seconds(ours.seconds), Formatting.seconds(git.seconds), Formatting.seconds(diff.seconds),
                Formatting.ratio(ours.seconds, git.seconds), Formatting.ratio(ours.seconds, diff.seconds),
                Formatting.mebibytes(ours.peakKiB * 1024), Formatting.mebibytes(git.peakKiB * 1024), Formatting.mebibytes(diff.peakKiB * 1024),
            ])
        }
        report.tables.append(table)
        report.notes.append(Self.note)
        if workloads.contains(where: \.name.hasManyEntries) {
            try work.removeManyFiles(scratch)
        } else {
            try Shell.remove(scratch)
        }
    }

    static let note = "diff (issue 26): each workload against an edited copy (`cp -a`, then w1: a line appended to each of its first 100 text files in path order, text being no NUL byte in the first 8,000; w2: one byte inverted in the middle of its first text file), made once per run, untimed. Commands, each a process of `rusage-exec`, interleaved, one untimed round then as many timed rounds as the workload gets: `wrapinspect diff -p OLD NEW` (hashes every file of both trees, then reads the changed files for their patches), `git diff --no-index --stat OLD NEW` and `diff -r --no-dereference OLD NEW`, all exiting 1 (the trees differ)."

    /// The edited copy of `workload` in the scratch directory, and what the edit was.
    private func editedCopy(of workload: Workload) throws -> (path: String, edit: String) {
        let copy = scratch + "/" + workload.name.rawValue + "-edited"
        try Shell.copy(workload.path, to: copy)
        let textFiles = try Self.regularFiles(below: copy).filter(Self.isText)
        if workload.name == .w2 {
            let file = try textFiles.first ?? { throw BenchError("w2 has no text file to edit") }()
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
            defer { try? handle.close() }
            let middle = try handle.seekToEnd() / 2
            try handle.seek(toOffset: middle)
            let byte = try handle.read(upToCount: 1) ?? Data([0])
            try handle.seek(toOffset: middle)
            try handle.write(contentsOf: Data([~byte[byte.startIndex]]))
            return (copy, "1 byte")
        }
        for file in textFiles.prefix(100) {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("an edited line\n".utf8))
            try handle.close()
        }
        return (copy, "\(min(100, textFiles.count)) files")
    }

    /// The regular files below `root` (symlinks not followed), in path order.
    private static func regularFiles(below root: String) throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if attributes[.type] as? FileAttributeType == .typeRegular { files.append(path) }
        }
        return files.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// No NUL byte in the first 8,000 bytes, as `diff -p` judges text.
    private static func isText(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return !(((try? handle.read(upToCount: 8000)) ?? Data()).contains(0))
    }
}
