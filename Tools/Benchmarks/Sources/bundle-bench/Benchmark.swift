import BenchSupport
import FileWrapperKit
import Foundation

/// One bundle-bench run: w1 opened and written against `cp -a`, w2 saved
/// in full and incrementally, and the peak memory of opening w2, each for
/// the workloads selected. Everything it copies goes to a scratch
/// directory, removed at the end.
struct Benchmark {
    let options: Options
    let work: Work

    /// The report; as JSON (for archive-bench, which records the date,
    /// machine and load itself) without those facts.
    func run() throws -> Report {
        var report = Report()
        if options.common.style == .json {
            try measure(into: &report)
        } else {
            try report.recordingRun { try measure(into: &$0) }
        }
        return report
    }

    private func measure(into report: inout Report) throws {
        let common = options.common
        guard common.workloads.contains(.w1) || common.workloads.contains(.w2) else {
            throw BenchError("only w1 and w2 are measured here; --workloads names neither")
        }
        let peer = try Shell.run("/bin/cp", ["--version"]).prefix { $0 != "\n" }
        report.fact("bundle-bench", "FileWrapperKit in its own process against \(peer) (`cp -a`, a child process); median of \(common.repetitions) (w1) and \(common.largeRepetitions) (w2) timed runs, each after one untimed run; caches warm")
        report.notes.append(Self.methodNote)
        let scratch = work.root + "/bundle-scratch"
        try work.makeFresh(scratch)
        var table = Table("FileWrapper bundles (bundle-bench)", columns: ["operation", "ours", "peer", "ratio"], leading: 1)
        if common.workloads.contains(.w1) {
            let w1 = try work.workload(.w1, generator: common.generator)
            report.fact("workload", w1.summary)
            work.waitForRecentRemovals()
            table.rows += try measureManySmallFiles(w1.path, scratch: scratch)
            report.notes.append(Self.manySmallFilesNote)
        }
        if common.workloads.contains(.w2) {
            let w2 = try work.workload(.w2, generator: common.generator)
            report.fact("workload", w2.summary)
            let package = try makePackage(from: w2.path, in: scratch)
            let saves = try measureSaves(package, scratch: scratch)
            table.rows += saves.rows
            report.targets.append(saves.target)
            report.notes.append(Self.savesNote)
            let opening = try measureOpening(package)
            table.rows += opening.rows
            report.notes.append(Self.openingNote(baselineBytes: opening.baselineBytes))
        }
        report.tables.append(table)
        log("removing \(scratch) ...")
        if common.workloads.contains(.w1) {
            try work.removeManyFiles(scratch)
        } else {
            try Shell.remove(scratch)
        }
    }

    static let methodNote =
        "bundle-bench: FileWrapperKit in this repository, built with `swift build -c release` in Tools/Benchmarks, timed in bundle-bench's own process; times are wall-clock medians, ratio = ours ÷ peer. After each timed step an untimed `sync` flushes what it wrote, so that no step pays for the previous one's writeback."

    static let manySmallFilesNote =
        "w1 open + write: `FileWrapper(url:)` then `write(to:options:[],originalContentsURL:nil)`, which copies the lazily read contents (`copy_file_range`); open only and write only time the two halves apart. Each w1 copy goes to a fresh directory, removed only at the end of the run: on ext4 without a journal, creating files within a minute of deleting many is slowed by the kernel's `recently_deleted()` inode check."

    static let savesNote =
        "w2 saves: a copy of w2 with a 1 KiB `index.json` added is the package; before each timed save it is opened and its `index.json` replaced by another 1 KiB (untimed). Full save: `write(to: sibling, options: .atomic, originalContentsURL: nil)`; incremental save: `write(to: package, options: [.atomic, .withNameUpdating], originalContentsURL: package)`, in place. `.atomic` calls `syncfs` before the swap, so both saves include flushing what they wrote to the disk; `cp -a` does not flush."

    static func openingNote(baselineBytes: Int) -> String {
        "w2 opening: peak RSS is `VmHWM` (from `/proc/self/status`) of a child process (`bundle-bench \(OpenChild.subcommand)`) that opens the package and reads every wrapper's `fileAttributes`, not its contents; the child's peak before opening is \(Formatting.mebibytes(Double(baselineBytes))) MiB."
    }

    // MARK: The package

    /// A package to save: a copy of w2 plus `index.json`.
    private func makePackage(from w2: String, in scratch: String) throws -> String {
        let package = scratch + "/package"
        try Shell.copy(w2, to: package)
        try Self.index(revision: 0).write(to: URL(fileURLWithPath: package + "/index.json"))
        return package
    }

    /// A JSON index of 1 KiB that differs for each revision: the change an
    /// incremental save writes.
    private static func index(revision: Int) -> Data {
        let start = #"{"revision": \#(revision), "files": ["media", "logs"], "padding": ""#
        let end = "\"}\n"
        return Data((start + String(repeating: "x", count: 1024 - start.utf8.count - end.utf8.count) + end).utf8)
    }

    // MARK: Measurements

    /// w1: opening and writing 20,000 files against `cp -a`. Every copy
    /// gets a fresh name and stays until the end of the run (see the notes).
    private func measureManySmallFiles(_ w1: String, scratch: String) throws -> [[String]] {
        log("w1: 1 + \(options.common.repetitions) rounds ...")
        let source = URL(fileURLWithPath: w1)
        var round = 0
        let times = try medians(of: options.common.repetitions) {
            round += 1
            let destination = scratch + "/w1-\(round)"
            let open = try timed { try FileWrapper(url: source) }
            let write = try timed { try open.result.write(to: URL(fileURLWithPath: destination + "-write"), options: [], originalContentsURL: nil) }
            try Shell.sync()
            let both = try timed {
                let wrapper = try FileWrapper(url: source)
                try wrapper.write(to: URL(fileURLWithPath: destination + "-open-write"), options: [], originalContentsURL: nil)
                return wrapper
            }
            try Shell.sync()
            let peer = try timed { try Shell.copy(w1, to: destination + "-cp") }
            try Shell.sync()
            return [both.seconds, open.seconds, write.seconds, peer.seconds]
        }
        return [
            Self.seconds("w1 open + write vs cp -a", ours: times[0], peer: times[3]),
            Self.seconds("w1 open only vs cp -a", ours: times[1], peer: times[3]),
            Self.seconds("w1 write only vs cp -a", ours: times[2], peer: times[3]),
        ]
    }

    /// w2: an incremental save against a full save (the target), and `cp -a` for scale.
    private func measureSaves(_ package: String, scratch: String) throws -> (rows: [[String]], target: TargetResult) {
        log("w2 saves: 1 + \(options.common.largeRepetitions) rounds ...")
        let url = URL(fileURLWithPath: package)
        let sibling = scratch + "/package-saved"
        let copy = scratch + "/package-copy"
        var revision = 0
        /// The package, opened, with a new `index.json`.
        func edited() throws -> FileWrapper {
            revision += 1
            let wrapper = try FileWrapper(url: url)
            wrapper.removeFileWrapper(wrapper.fileWrappers!["index.json"]!)
            wrapper.addRegularFile(withContents: Self.index(revision: revision), preferredFilename: "index.json")
            return wrapper
        }
        let times = try medians(of: options.common.largeRepetitions) {
            let forFull = try edited()
            let full = try timed { try forFull.write(to: URL(fileURLWithPath: sibling), options: .atomic, originalContentsURL: nil) }
            try Shell.remove(sibling)
            try Shell.sync()
            let forIncremental = try edited()
            let incremental = try timed { try forIncremental.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: url) }
            try Shell.sync()
            let peer = try timed { try Shell.copy(package, to: copy) }
            try Shell.remove(copy)
            try Shell.sync()
            return [incremental.seconds, full.seconds, peer.seconds]
        }
        let (incremental, full) = (times[0], times[1])
        let target = TargetResult(
            "incremental save after a 1 KiB change", workload: "w2", ours: Formatting.seconds(incremental) + " s",
            peer: "full save: " + Formatting.seconds(full) + " s", ratio: Formatting.ratio(incremental, full),
            limit: "≤ 0.05", met: incremental <= 0.05 * full)
        let rows = [
            Self.seconds("w2 incremental save vs full save", ours: incremental, peer: full),
            Self.seconds("w2 full save vs cp -a", ours: full, peer: times[2]),
        ]
        return (rows, target)
    }

    /// Peak memory of opening w2, against its size; also the child's peak
    /// before opening.
    private func measureOpening(_ package: String) throws -> (rows: [[String]], baselineBytes: Int) {
        log("w2 opening: 1 + \(options.common.largeRepetitions) rounds each ...")
        let size = try Self.regularFileBytes(under: package)
        var variants = [("w2 open lazily: peak RSS vs package size", [String]())]
        if options.measuresImmediate {
            variants.append(("w2 open .immediate: peak RSS vs package size", ["--immediate"]))
            variants.append(("w2 open .immediate, .withoutMapping: peak RSS vs package size", ["--immediate", "--without-mapping"]))
        }
        var rows: [[String]] = []
        var baselines: [Double] = []
        for (operation, flags) in variants {
            let figures = try medians(of: options.common.largeRepetitions) {
                let output = try Shell.run(Shell.executable, [OpenChild.subcommand, package] + flags)
                return output.split(whereSeparator: \.isWhitespace).map { Double($0)! * 1024 }
            }
            baselines.append(figures[0])
            rows.append([operation, Formatting.mebibytes(figures[1]) + " MiB", Formatting.mebibytes(Double(size)) + " MiB",
                         Formatting.ratio(figures[1], Double(size))])
        }
        return (rows, Int(median(baselines)))
    }

    // MARK: Helpers

    /// Runs `round` once untimed, to warm the caches, then `count` times, and
    /// returns the median of each of the figures a round gives.
    private func medians(of count: Int, _ round: () throws -> [Double]) rethrows -> [Double] {
        _ = try round()
        var samples: [[Double]] = []
        for _ in 0..<count {
            samples.append(try round())
        }
        return samples[0].indices.map { index in median(samples.map { $0[index] }) }
    }

    /// A row of two median times and their ratio.
    private static func seconds(_ operation: String, ours: Double, peer: Double) -> [String] {
        [operation, Formatting.seconds(ours) + " s", Formatting.seconds(peer) + " s", Formatting.ratio(ours, peer)]
    }

    /// The bytes of the regular files under `path`.
    private static func regularFileBytes(under path: String) throws -> Int {
        let manager = FileManager.default
        var total = 0
        for relative in try manager.subpathsOfDirectory(atPath: path) {
            let attributes = try manager.attributesOfItem(atPath: path + "/" + relative)
            if attributes[.type] as? FileAttributeType == .typeRegular {
                total += (attributes[.size] as! NSNumber).intValue
            }
        }
        return total
    }
}
