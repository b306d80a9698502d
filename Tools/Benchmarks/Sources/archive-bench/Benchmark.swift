import BenchSupport
import Foundation

/// What one workload in one suite gave: the median of every operation in
/// the order measured, the archives' sizes, and the unpacks whose trees
/// differ from the source in modes or times.
struct Group {
    var medians: [(operation: Operation, sample: Sample)] = []
    var sizes: [Tool: Int] = [:]
    var metadataDiffers: [Operation] = []

    func sample(of operation: Operation) -> Sample? {
        medians.first { $0.operation == operation }?.sample
    }

    /// The fastest peer doing the job `operation` does: packing or
    /// snapshotting the workload, or making a tree of it.
    func bestPeer(for operation: Operation) -> (operation: Operation, sample: Sample)? {
        medians.filter { $0.operation.isPeerBaseline && $0.operation.createsTree == operation.createsTree }
            .min { $0.sample.seconds < $1.sample.seconds }
    }
}

/// Every group measured, by workload and suite.
typealias Results = [WorkloadName: [Suite: Group]]

/// One benchmark run: measures every operation on every workload in every
/// suite selected, runs bundle-bench, and returns the report. Archives,
/// manifests and unpacked trees go to `scratch`, removed at the end.
struct Benchmark {
    let options: Options
    let work: Work
    var scratch: String { work.root + "/archive-scratch" }

    func run() throws -> Report {
        var report = Report()
        try report.recordingRun { try measureEverything(into: &$0) }
        return report
    }

    /// bundle-bench first, so that the wait after it removes its w1 copies
    /// (see `Work.waitForRecentRemovals()`) passes during w2 and w3; then
    /// the archives and snapshots; then the hostile shapes, which need no
    /// workload (none is generated when they are all that is asked for).
    private func measureEverything(into report: inout Report) throws {
        report.fact("repository", Self.repositoryState)
        report.fact("ours", "`\(options.wrapinspect)`")
        report.fact("peers", try Self.peers())
        // The workloads some suite selected measures: w4 for the zip document, the others for the rest.
        let measuresTrees = options.suites.contains { $0 != .shapes && $0 != .zipDocument }
        let workloads = try options.common.workloads
            .filter { $0 == .w4 ? options.suites.contains(.zipDocument) : measuresTrees }
            .map { try work.workload($0, generator: options.common.generator) }
        for workload in workloads { report.fact("workload", workload.summary) }
        let bundle = try runBundleBench()
        // w4 is measured as a zip document only.
        let trees = workloads.filter { $0.name != .w4 }
        let suites = options.suites.filter { $0 != .bundle && $0 != .shapes && $0 != .diff && $0 != .zipDocument }
        if !suites.isEmpty, !trees.isEmpty {
            try measureArchivesAndSnapshots(trees, suites, into: &report)
        }
        if options.suites.contains(.diff) {
            try DiffBenchmark(options: options, work: work).measure(trees.filter { $0.name != .w3 }, into: &report)
        }
        if options.suites.contains(.zipDocument), let w4 = workloads.first(where: { $0.name == .w4 }) {
            try ZipDocumentBenchmark(options: options, work: work).measure(w4, into: &report)
        }
        if options.suites.contains(.shapes) {
            try ShapeBenchmark(options: options, work: work).measure(into: &report)
        }
        if let bundle { report.merge(bundle) }
    }

    /// Measures `suites` on `workloads`, checks the outputs, and adds the
    /// facts, targets, tables and notes.
    private func measureArchivesAndSnapshots(_ workloads: [Workload], _ suites: [Suite], into report: inout Report) throws {
        try work.makeFresh(scratch)
        report.fact("repetitions", "median of \(options.common.repetitions) (w1, w3) and \(options.common.largeRepetitions) (w2) timed runs, after one untimed run; caches warm")
        report.fact("processes alone", try measureStartup())

        var results: Results = [:]
        // Workloads with many entries go last, see `WorkloadName.hasManyEntries`.
        for workload in workloads.filter({ !$0.name.hasManyEntries }) + workloads.filter(\.name.hasManyEntries) {
            if workload.name.hasManyEntries { work.waitForRecentRemovals() }
            for suite in suites {
                results[workload.name, default: [:]][suite] = try measureGroup(workload, suite)
            }
        }

        let differing = workloads.flatMap { workload in
            suites.flatMap { suite in
                results[workload.name]![suite]!.metadataDiffers.map { "\(workload.name.rawValue) \(suite.rawValue) \($0.label)" }
            }
        }
        if suites.contains(where: \.isArchive) {
            report.fact("unpacked trees", "every one holds the source's names, kinds, contents and symlink targets (`diff -r --no-dereference`, checked in the untimed run); "
                + (differing.isEmpty ? "every one also has the source's modes and times (gen.py's digest)"
                    : "modes or times differ from the source's (gen.py's digest) after: " + differing.joined(separator: "; ")))
        }
        if suites.contains(.snapshot) {
            report.fact("snapshots", "our manifest and the sha256sum line give every regular file the same SHA-256 (checked in the untimed run)")
        }
        report.targets = Targets(results: results).all
        report.tables.append(timesTable(workloads, suites, results))
        if suites.contains(where: \.isArchive) {
            report.tables.append(sizesTable(workloads, suites.filter(\.isArchive), results))
        }
        report.notes = Self.notes
        log("removing \(scratch) ...")
        if workloads.contains(where: \.name.hasManyEntries) {
            try work.removeManyFiles(scratch)
        } else {
            try Shell.remove(scratch)
        }
    }

    /// How the figures were made, printed under the tables.
    static let notes = [
        "ours: the release `wrapinspect` of this repository, built with `swift build -c release --static-swift-stdlib --product wrapinspect`, run as `wrapinspect pack SOURCE ARCHIVE` (the format from the ending, default options), `wrapinspect unpack ARCHIVE DESTINATION` and `wrapinspect snapshot SOURCE -o FILE.json`.",
        "Peers, run in the workload directory and given its top-level NAMES, so that every archive holds the same entries (with `.` instead, the tar tools would add a `./` entry for the root; our tar and cpio add one, which the peers' archives lack): `tar -cf ARCHIVE NAMES...` (GNU tar, .tar only), `bsdtar -cf ARCHIVE [-z | --zstd | --format zip] NAMES...`, `zip -qry ARCHIVE NAMES...`; ZIPFoundation 0.9.20 through `zipfoundation-zip SOURCE ARCHIVE` (Tools/ZIPFoundationPeer: `FileManager.zipItem(at:to:shouldKeepParent: false, compressionMethod: .deflate)`, the same top-level entries). Unpacking: `tar -xf ARCHIVE -C DESTINATION` and `bsdtar -xf ARCHIVE -C DESTINATION` (the directory made beforehand, untimed), `unzip -q ARCHIVE -d DESTINATION`, and `cp -a SOURCE DESTINATION`, a tree made without an archive. Snapshot: `sh -c 'find . -type f -print0 | xargs -0 -P2 sha256sum > FILE'` in the workload directory. Every tool uses its default compression level: gzip and deflate 6, zstd 3.",
        "Every operation is one process, forked by `rusage-exec` (Tools/Benchmarks/Sources/rusage-exec/main.c): time is wall-clock from fork to `wait4`, user and sys are `ru_utime` and `ru_stime` (with the children's, for the sha256sum line), peak RSS is `ru_maxrss`: forked from that small C program, a process's `ru_maxrss` is its own peak, not its parent's (for the sha256sum line, its largest process's). Figures are medians. \"unpack: A ← B\" is A unpacking the archive B packed.",
        "Ratios divide by the best peer: the fastest peer in the same group doing the same job. For a pack, the other tools packing that format (GNU tar and bsdtar for tar; bsdtar, Info-ZIP and ZIPFoundation for zip); for an unpack, each peer unpacking its own archive of that format, and `cp -a`; for a snapshot, the sha256sum line. The ZIPFoundation target divides by ZIPFoundation alone, the archive-size target by Info-ZIP's archive. Targets whose workload or format was not measured are left out.",
        "Caches are warm: the page cache is not dropped, and one untimed run of every operation comes first, which also checks the outputs: every unpacked and copied tree against the source, every peer's archive by our unpacking it, both snapshots against each other. Operations of one workload and format run interleaved in rounds; odd-numbered rounds take the packs and the unpacks in reverse order, so that no tool always goes first. After each operation an untimed `sync` flushes what it wrote; its time (\"sync after\") is the writeback the operation left behind. Our pack calls `fsync` on the archive before renaming it into place, so its own time includes that writeback; the peers leave it to the `sync`. The last column compares time plus sync, the cost of the same bytes on disk; `sync` also flushes whatever else on the machine was dirty.",
        "Each pack writes a new file (the previous one removed, untimed), each unpack and copy a new directory. w2's and w3's trees are removed after each operation, untimed. w1's (20,700 entries each) stay until the end of the run, so w1 is measured last, at least 6 minutes after a benchmark last removed many files: on ext4 without a journal, the kernel's `recently_deleted()` check makes creating files slow for minutes after many were deleted nearby (bsdtar unpacking w1 took 0.9 s fresh, 5.5 s one minute after 62,000 files were removed and synced, 1.2 s after three minutes, 0.9 s after six).",
        "Run as root, as here: bsdtar and GNU tar restore owners when unpacking, and bsdtar by default reads and stores ACLs, extended attributes and file flags when packing.",
    ]

    // MARK: bundle-bench

    /// bundle-bench's report for the workloads it measures (w1, w2), run as
    /// a child in the same work directory; nil when it has nothing to do.
    private func runBundleBench() throws -> Report? {
        let common = options.common
        let workloads = common.workloads.filter { $0 == .w1 || $0 == .w2 }
        guard options.suites.contains(.bundle), !workloads.isEmpty else { return nil }
        log("running bundle-bench ...")
        let output = try Shell.run(Shell.sibling("bundle-bench"), [
            "--work", work.root, "--generator", common.generator, "--workloads", workloads.map(\.rawValue).joined(separator: ","),
            "--repeat", String(common.repetitions), "--repeat-large", String(common.largeRepetitions), "--json",
        ])
        return try JSONDecoder().decode(Report.self, from: Data(output.utf8))
    }

    // MARK: Measurements

    /// What starting a process costs each side before any work: ours
    /// (`wrapinspect --help`) and bsdtar writing an empty archive.
    private func measureStartup() throws -> String {
        let commands = [
            ("ours (`wrapinspect --help`)", [options.wrapinspect, "--help"]),
            ("bsdtar (`bsdtar -cf /dev/null -T /dev/null`)", ["bsdtar", "-cf", "/dev/null", "-T", "/dev/null"]),
        ]
        return try commands.map { name, command in
            let samples = try (0...options.common.repetitions).map { _ in try Shell.measure(command, in: scratch) }
            let median = Sample.median(of: Array(samples.dropFirst()))
            return "\(name) \(Formatting.seconds(median.seconds)) s and \(Formatting.mebibytes(median.peakKiB * 1024)) MiB peak RSS"
        }.joined(separator: "; ")
    }

    /// Runs every operation of `suite` on `workload`: one untimed round,
    /// which also checks the outputs, then the timed ones, odd ones in
    /// reverse order. Removes what it made at the end, unless the workload
    /// has many entries.
    private func measureGroup(_ workload: Workload, _ suite: Suite) throws -> Group {
        let context = Context(workload: workload, suite: suite, directory: "\(scratch)/\(workload.name.rawValue)-\(suite.rawValue)")
        try FileManager.default.createDirectory(atPath: context.directory, withIntermediateDirectories: true)
        let operations = Operation.all(in: suite)
        let repetitions = options.common.repetitions(of: workload.name)
        log("\(workload.name.rawValue) \(suite.rawValue): 1 + \(repetitions) rounds of \(operations.count) operations ...")
        var group = Group()
        var samples: [Operation: [Sample]] = [:]
        for round in 0...repetitions {
            let order = round % 2 == 0 ? operations
                : operations.filter { !$0.createsTree }.reversed() + operations.filter(\.createsTree).reversed()
            for operation in order {
                let sample = try perform(operation, context, round: round, metadataDiffers: &group.metadataDiffers)
                if round > 0 { samples[operation, default: []].append(sample) }
            }
            if round == 0, suite == .snapshot {
                try checkSnapshots(of: workload, manifest: context.manifest, sums: context.sums)
            }
        }
        group.medians = operations.map { ($0, Sample.median(of: samples[$0]!)) }
        for tool in suite.packers {
            let attributes = try FileManager.default.attributesOfItem(atPath: context.archive(of: tool))
            group.sizes[tool] = (attributes[.size] as! NSNumber).intValue
        }
        if !workload.name.hasManyEntries { try Shell.remove(context.directory) }
        return group
    }

    /// Where the operations of one workload in one suite write.
    private struct Context {
        let workload: Workload
        let suite: Suite
        let directory: String

        func archive(of tool: Tool) -> String {
            "\(directory)/\(tool.fileStem).\(suite.rawValue)"
        }

        /// The tree that `operation` makes in `round`.
        func tree(of operation: Operation, round: Int) -> String {
            switch operation {
            case .unpack(let tool, let producer): "\(directory)/\(tool.fileStem)-from-\(producer.fileStem)-\(round)"
            default: "\(directory)/cp-\(round)"
            }
        }

        var manifest: String { directory + "/ours.json" }
        var sums: String { directory + "/sha256sum.txt" }
    }

    /// Runs one operation and the `sync` after it; in the untimed round,
    /// checks the tree an unpack or a copy made.
    private func perform(_ operation: Operation, _ context: Context, round: Int, metadataDiffers: inout [Operation]) throws -> Sample {
        let source = context.workload.path
        let names = context.workload.topLevelNames
        switch operation {
        case .pack(let tool):
            let archive = context.archive(of: tool)
            try Self.removeFile(archive)
            switch tool {
            case .ours: return try Self.measureWithSync([options.wrapinspect, "pack", source, archive], in: context.directory)
            case .gnuTar: return try Self.measureWithSync(["tar", "-cf", archive] + names, in: source)
            case .bsdtar: return try Self.measureWithSync(["bsdtar", "-cf", archive] + context.suite.bsdtarFlags + names, in: source)
            case .infoZip: return try Self.measureWithSync(["zip", "-qry", archive] + names, in: source)
            case .zipFoundation: return try Self.measureWithSync([options.zipFoundationZip, source, archive], in: context.directory)
            }
        case .unpack(let tool, let producer):
            let archive = context.archive(of: producer)
            let destination = context.tree(of: operation, round: round)
            let command: [String]
            switch tool {
            case .ours:
                command = [options.wrapinspect, "unpack", archive, destination]
            case .gnuTar, .bsdtar:
                try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false)
                command = [tool == .gnuTar ? "tar" : "bsdtar", "-xf", archive, "-C", destination]
            case .infoZip:
                command = ["unzip", "-q", archive, "-d", destination]
            case .zipFoundation:
                throw BenchError("ZIPFoundation only packs here")
            }
            return try measureMakingTree(operation, command, context, destination, round: round, metadataDiffers: &metadataDiffers)
        case .copy:
            let destination = context.tree(of: operation, round: round)
            return try measureMakingTree(operation, ["cp", "-a", source, destination], context, destination, round: round, metadataDiffers: &metadataDiffers)
        case .snapshot:
            try Self.removeFile(context.manifest)
            return try Self.measureWithSync([options.wrapinspect, "snapshot", source, "-o", context.manifest], in: context.directory)
        case .hashEveryFile:
            try Self.removeFile(context.sums)
            return try Self.measureWithSync(["sh", "-c", #"find . -type f -print0 | xargs -0 -P2 sha256sum > "$1""#, "sh", context.sums], in: source)
        }
    }

    /// Measures `command`, which makes the tree `destination`; in the
    /// untimed round checks it; removes it unless the workload has many entries.
    private func measureMakingTree(_ operation: Operation, _ command: [String], _ context: Context, _ destination: String,
                                   round: Int, metadataDiffers: inout [Operation]) throws -> Sample {
        let sample = try Self.measureWithSync(command, in: context.directory)
        if round == 0, try !check(destination, against: context.workload, after: operation) {
            metadataDiffers.append(operation)
        }
        if !context.workload.name.hasManyEntries { try Shell.remove(destination) }
        return sample
    }

    /// `command` measured in `directory`, with the time of the `sync` after it.
    static func measureWithSync(_ command: [String], in directory: String) throws -> Sample {
        var sample = try Shell.measure(command, in: directory)
        sample.syncSeconds = try Shell.sync()
        return sample
    }

    private static func removeFile(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }

    // MARK: Checks

    /// Throws unless `tree` holds the workload's names, kinds, contents and
    /// symlink targets; returns whether its modes and times match too
    /// (gen.py's digest covers them).
    private func check(_ tree: String, against workload: Workload, after operation: Operation) throws -> Bool {
        do {
            try Shell.run("/usr/bin/diff", ["-rq", "--no-dereference", workload.path, tree])
        } catch {
            throw BenchError("\(operation.label): \(tree) differs from \(workload.path)")
        }
        let url = URL(fileURLWithPath: tree)
        let summary = try Shell.run("/usr/bin/env", [
            "python3", options.common.generator, "--out", url.deletingLastPathComponent().path, "--digest-only", url.lastPathComponent,
        ])
        return Workload.field("digest", of: summary.trimmingCharacters(in: .whitespacesAndNewlines)) == workload.field("digest")
    }

    /// Throws unless our manifest and the sha256sum line's output list the
    /// same regular files, as many as the workload has, with the same SHA-256.
    private func checkSnapshots(of workload: Workload, manifest: String, sums: String) throws {
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any]
        var ours: [String: String] = [:]
        for entry in document?["entries"] as? [[String: Any]] ?? [] where entry["kind"] as? String == "file" {
            ours[entry["path"] as? String ?? ""] = entry["sha256"] as? String
        }
        var theirs: [String: String] = [:]
        // Lines are "HASH  ./PATH".
        for line in try String(contentsOfFile: sums, encoding: .utf8).split(separator: "\n") {
            theirs[String(line.dropFirst(64 + 4))] = String(line.prefix(64))
        }
        guard ours == theirs, ours.count == workload.field("files").flatMap(Int.init) else {
            throw BenchError("\(manifest) and \(sums) do not give the \(workload.field("files") ?? "?") files of \(workload.path) the same SHA-256 (\(ours.count) and \(theirs.count) files listed)")
        }
    }

    // MARK: Tables

    private func timesTable(_ workloads: [Workload], _ suites: [Suite], _ results: Results) -> Table {
        var table = Table("Times and peak memory (medians)", columns: [
            "workload", "format", "operation", "time s", "time ÷ best peer", "user s", "sys s",
            "peak RSS MiB", "RSS ÷ best peer", "sync after s", "time+sync ÷ best peer",
        ], leading: 3)
        for workload in workloads {
            for suite in suites {
                let group = results[workload.name]![suite]!
                for (operation, sample) in group.medians {
                    let best = group.bestPeer(for: operation)!.sample
                    table.rows.append([
                        workload.name.rawValue, suite.rawValue, operation.label,
                        Formatting.seconds(sample.seconds), Formatting.ratio(sample.seconds, best.seconds),
                        Formatting.seconds(sample.userSeconds), Formatting.seconds(sample.systemSeconds),
                        Formatting.mebibytes(sample.peakKiB * 1024), Formatting.ratio(sample.peakKiB, best.peakKiB),
                        Formatting.seconds(sample.syncSeconds),
                        Formatting.ratio(sample.seconds + sample.syncSeconds, best.seconds + best.syncSeconds),
                    ])
                }
            }
        }
        return table
    }

    private func sizesTable(_ workloads: [Workload], _ suites: [Suite], _ results: Results) -> Table {
        var table = Table("Archive sizes", columns: ["workload", "format", "source MiB"] + Tool.allCases.map { $0.packer + " MiB" } + ["ours ÷ smallest peer"], leading: 2)
        for workload in workloads {
            for suite in suites {
                let sizes = results[workload.name]![suite]!.sizes
                let smallestPeer = sizes.filter { $0.key != .ours }.values.min()!
                table.rows.append([workload.name.rawValue, suite.rawValue, Formatting.mebibytes(Double(workload.field("bytes").flatMap(Int.init) ?? 0))]
                    + Tool.allCases.map { tool in sizes[tool].map { Formatting.mebibytes(Double($0)) } ?? "–" }
                    + [Formatting.ratio(Double(sizes[.ours]!), Double(smallestPeer))])
            }
        }
        return table
    }

    // MARK: Facts

    /// The commit of the repository and whether its sources have local changes.
    private static var repositoryState: String {
        let git = ["git", "-C", repositoryRoot.path]
        guard let commit = try? Shell.run("/usr/bin/env", git + ["log", "-1", "--format=%h"]).trimmingCharacters(in: .whitespacesAndNewlines),
              let changes = try? Shell.run("/usr/bin/env", git + ["status", "--porcelain", "--", "Sources", "Package.swift"])
        else { return "\(repositoryRoot.path), not a git checkout" }
        return "commit \(commit), " + (changes.isEmpty ? "no local changes under Sources/" : "with local changes under Sources/ or in Package.swift")
    }

    private static func peers() throws -> String {
        [
            try Shell.firstLine(of: ["tar", "--version"], startingWith: "tar"),
            try Shell.firstLine(of: ["bsdtar", "--version"], startingWith: "bsdtar"),
            try Shell.firstLine(of: ["zip", "-h"], startingWith: "Zip").replacingOccurrences(of: ". Usage:", with: ""),
            try Shell.firstLine(of: ["unzip", "-v"], startingWith: "UnZip"),
            "ZIPFoundation 0.9.20 (Tools/ZIPFoundationPeer)",
            try Shell.firstLine(of: ["cp", "--version"], startingWith: "cp"),
            try Shell.firstLine(of: ["sha256sum", "--version"], startingWith: "sha256sum"),
            try Shell.firstLine(of: ["xargs", "--version"], startingWith: "xargs"),
        ].joined(separator: "; ")
    }
}
