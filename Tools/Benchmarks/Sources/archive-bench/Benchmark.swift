import Foundation

/// A workload on disk, with gen.py's summary line and the names at its top,
/// which bsdtar and zip are given so that every archive holds the same
/// entries.
struct Workload {
    let name: WorkloadName
    let path: String
    let summary: String
    let topLevelNames: [String]
    let repetitions: Int

    /// A `key=value` field of the summary line.
    func field(_ key: String) -> String? {
        Self.field(key, of: summary)
    }

    static func field(_ key: String, of summary: String) -> String? {
        summary.split(separator: " ").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }
}

/// One benchmark run: generates the workloads if needed, measures every
/// operation on every workload in every format, and returns the report.
/// Archives and unpacked trees go to `scratch`, removed at the end.
struct Benchmark {
    let options: Options
    /// The work directory: `workloads/` (kept, shared with bundle-bench),
    /// `archive-scratch/` and the marker of the last removal of many files.
    let work: String
    var scratch: String { work + "/archive-scratch" }
    /// Its modification time is when this benchmark last removed many files.
    var removalMarker: String { work + "/archive-scratch.removed" }

    func run() throws -> Report {
        var report = Report()
        report.facts.append(("date", ISO8601DateFormatter().string(from: Date())))
        report.facts.append(("machine", Self.machine))
        report.facts.append(("peers", try Self.peers()))
        report.facts.append(("load average at start", Self.loadAverage))
        let workloads = try options.workloads.map { try workload($0, report: &report) }
        try prepareScratch()
        report.facts.append(("repetitions", "median of \(options.repetitions) (w1, w3) and \(options.largeRepetitions) (w2) timed runs, after one untimed run; caches warm"))
        report.facts.append(("processes alone", try measureStartup()))

        var times = Table(columns: [
            "workload", "format", "operation", "time s", "time ÷ bsdtar", "user s", "sys s",
            "peak RSS MiB", "RSS ÷ bsdtar", "sync after s", "time+sync ÷ bsdtar",
        ], leading: 3)
        var sizes = Table(columns: [
            "workload", "format", "source MiB", "ours MiB", "bsdtar MiB", "Info-ZIP MiB", "ours ÷ bsdtar",
        ], leading: 2)
        var differing: [String] = []
        // Workloads with many entries go last, see `hasManyEntries`.
        var groups: [WorkloadName: [(format: BenchFormat, group: Group)]] = [:]
        for workload in workloads.filter({ !$0.name.hasManyEntries }) + workloads.filter(\.name.hasManyEntries) {
            if workload.name.hasManyEntries { waitForRecentRemovals() }
            groups[workload.name] = try options.formats.map { ($0, try measure(workload, $0)) }
        }
        for workload in workloads {
            for (format, group) in groups[workload.name]! {
                for (operation, sample) in group.medians {
                    let baseline = group.medians.first { $0.operation == operation.baseline }!.sample
                    times.rows.append([
                        workload.name.rawValue, format.rawValue, operation.label,
                        Self.seconds(sample.seconds), Self.ratio(sample.seconds, baseline.seconds),
                        Self.seconds(sample.userSeconds), Self.seconds(sample.systemSeconds),
                        Self.mebibytes(sample.peakKiB * 1024), Self.ratio(sample.peakKiB, baseline.peakKiB),
                        Self.seconds(sample.syncSeconds),
                        Self.ratio(sample.seconds + sample.syncSeconds, baseline.seconds + baseline.syncSeconds),
                    ])
                }
                let bytes = group.sizes
                sizes.rows.append([
                    workload.name.rawValue, format.rawValue, Self.mebibytes(Double(workload.field("bytes").flatMap(Int.init) ?? 0)),
                    Self.mebibytes(Double(bytes[.ours]!)), Self.mebibytes(Double(bytes[.bsdtar]!)),
                    bytes[.infoZip].map { Self.mebibytes(Double($0)) } ?? "–",
                    Self.ratio(Double(bytes[.ours]!), Double(bytes[.bsdtar]!)),
                ])
                differing += group.metadataDiffers.map { "\(workload.name.rawValue) \(format.rawValue) \($0.label)" }
            }
        }
        report.facts.append(("unpacked trees", "every one holds the source's names, kinds, contents and symlink targets (`diff -r --no-dereference`, checked in the untimed run); "
            + (differing.isEmpty ? "every one also has the source's modes and times (gen.py's digest)"
                : "modes or times differ from the source's (gen.py's digest) after: " + differing.joined(separator: "; "))))
        report.facts.append(("load average at end", Self.loadAverage))
        report.tables = [times, sizes]
        report.notes = Self.notes
        log("removing \(scratch) ...")
        if workloads.contains(where: \.name.hasManyEntries) {
            try removeManyFiles(scratch)
        } else {
            try Shell.remove(scratch)
        }
        return report
    }

    /// How the figures were made, printed under the tables.
    static let notes = [
        "ours: FileWrapperArchive in this repository, built with `swift build -c release`, run as `archive-bench pack FORMAT SOURCE ARCHIVE` (`ArchiveWriter.write(contentsOf:to:options:)`) and `archive-bench unpack ARCHIVE DESTINATION` (`ArchiveUnpacker.unpack(archiveAt:to:)`), the calls `wrapinspect pack` and `unpack` make, with default options.",
        "Peers, run in the workload directory: `bsdtar -cf ARCHIVE [-z | --zstd | --format zip] NAMES...` and `zip -qry ARCHIVE NAMES...`, where NAMES are the workload's top-level names, so that every archive holds the same entries (with `.` instead, bsdtar adds a `./` entry, which our unpacker refuses as an entry for the destination itself); `bsdtar -xf ARCHIVE -C DESTINATION` (the directory made beforehand, untimed) and `unzip -q ARCHIVE -d DESTINATION`. Every tool uses its default compression level: gzip and deflate 6, zstd 3.",
        "Every operation is one process, forked by `rusage-exec` (Sources/rusage-exec/main.c): time is wall-clock from fork to `wait4`, user and sys are `ru_utime` and `ru_stime`, peak RSS is `ru_maxrss`; forked from that small C program, a process's `ru_maxrss` is its own peak, not its parent's. Figures are medians; ratios divide by bsdtar doing the same: a pack by bsdtar's pack, an unpack by bsdtar unpacking its own archive. \"unpack: A ← B\" is A unpacking the archive B packed.",
        "Caches are warm: the page cache is not dropped, and one untimed run of every operation comes first. Odd-numbered runs take the packs and the unpacks in reverse order, so that no tool always goes first. After each operation an untimed `sync` flushes what it wrote; its time (\"sync after\") is the writeback the operation left behind. Our pack calls `fsync` on the archive before renaming it into place, so its own time includes that writeback; bsdtar and zip leave it to the `sync`. The last column compares time plus sync, the cost of the same bytes on disk; `sync` also flushes whatever else on the machine was dirty.",
        "Each pack writes a new file (the previous one removed, untimed), each unpack a new directory. w2's and w3's unpacked trees are removed after each operation, untimed. w1's (20,700 entries each) stay until the end of the run (about 13 GiB), so w1 is measured last, at least 6 minutes after this benchmark last removed many files: on ext4 without a journal, the kernel's `recently_deleted()` check makes creating files slow for minutes after many were deleted nearby (bsdtar unpacking w1 took 0.9 s fresh, 5.5 s one minute after 62,000 files were removed and synced, 1.2 s after three minutes, 0.9 s after six).",
        "Run as root, as here: bsdtar restores owners when unpacking and by default reads and stores ACLs, extended attributes and file flags when packing.",
    ]

    // MARK: Workloads and scratch

    /// Workload `name`, generated by gen.py unless an earlier run (of this
    /// benchmark or bundle-bench) left it; gen.py's summary goes into the report.
    private func workload(_ name: WorkloadName, report: inout Report) throws -> Workload {
        let directory = work + "/workloads"
        let path = directory + "/" + name.rawValue
        let summaryPath = path + ".summary"
        if !FileManager.default.fileExists(atPath: summaryPath) {
            log("generating \(name.rawValue) in \(directory) ...")
            let summary = try Shell.run("/usr/bin/env", ["python3", options.generator, "--out", directory, name.rawValue])
            try summary.write(toFile: summaryPath, atomically: true, encoding: .utf8)
        }
        let summary = try String(contentsOfFile: summaryPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        report.facts.append(("workload", summary))
        let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return Workload(name: name, path: path, summary: summary, topLevelNames: names,
                        repetitions: name == .w2 ? options.largeRepetitions : options.repetitions)
    }

    /// A fresh, empty scratch directory; what a broken run left is removed.
    private func prepareScratch() throws {
        if FileManager.default.fileExists(atPath: scratch) {
            log("removing what an earlier run left in \(scratch) ...")
            try removeManyFiles(scratch)
        }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// Removes `path`, which holds many files, flushes, and marks the time
    /// for ``waitForRecentRemovals()``.
    private func removeManyFiles(_ path: String) throws {
        try Shell.remove(path)
        _ = try Shell.sync()
        guard FileManager.default.createFile(atPath: removalMarker, contents: nil) else {
            throw BenchError("cannot write \(removalMarker)")
        }
    }

    /// Sleeps until 6 minutes have passed since this benchmark, in this run
    /// or the one before, last removed many files, so that ext4's
    /// `recently_deleted()` check does not slow the unpacks (see `hasManyEntries`).
    private func waitForRecentRemovals() {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: removalMarker),
              let removed = attributes[.modificationDate] as? Date
        else { return }
        let wait = 360 - Date().timeIntervalSince(removed)
        guard wait > 0 else { return }
        log(String(format: "waiting %.0f s after removing many files (ext4's recently_deleted()) ...", wait))
        Thread.sleep(forTimeInterval: wait)
    }

    // MARK: Measurements

    /// What starting a process costs each side before any work: ours
    /// (`archive-bench idle`) and bsdtar writing an empty archive.
    private func measureStartup() throws -> String {
        let commands = [
            ("ours (`archive-bench idle`)", [Shell.executable, Child.idle.rawValue]),
            ("bsdtar (`bsdtar -cf /dev/null -T /dev/null`)", ["bsdtar", "-cf", "/dev/null", "-T", "/dev/null"]),
        ]
        return try commands.map { name, command in
            let samples = try (0...options.repetitions).map { _ in try Shell.measure(command, in: scratch) }
            let median = Sample.median(of: Array(samples.dropFirst()))
            return "\(name) \(Self.seconds(median.seconds)) s and \(Self.mebibytes(median.peakKiB * 1024)) MiB peak RSS"
        }.joined(separator: "; ")
    }

    /// What one workload in one format gives: the medians of every
    /// operation in order, the archives' sizes, and the unpacks whose trees
    /// differ from the source in modes or times.
    private struct Group {
        var medians: [(operation: Operation, sample: Sample)] = []
        var sizes: [Tool: Int] = [:]
        var metadataDiffers: [Operation] = []
    }

    /// Runs every operation on `workload` in `format`: one untimed round,
    /// which also checks the unpacked trees, then the timed ones, odd ones
    /// in reverse order. Removes what it made at the end, unless the
    /// workload has many entries.
    private func measure(_ workload: Workload, _ format: BenchFormat) throws -> Group {
        let directory = "\(scratch)/\(workload.name.rawValue)-\(format.rawValue)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let operations = Operation.all(for: format)
        log("\(workload.name.rawValue) \(format.rawValue): 1 + \(workload.repetitions) rounds of \(operations.count) operations ...")
        var group = Group()
        var samples: [Operation: [Sample]] = [:]
        let packs = operations.filter { if case .pack = $0 { true } else { false } }
        let unpacks = operations.filter { if case .unpack = $0 { true } else { false } }
        for round in 0...workload.repetitions {
            for operation in round % 2 == 0 ? operations : packs.reversed() + unpacks.reversed() {
                let context = Context(workload: workload, format: format, directory: directory, round: round)
                let sample = try perform(operation, context, metadataDiffers: &group.metadataDiffers)
                if round > 0 { samples[operation, default: []].append(sample) }
            }
        }
        group.medians = operations.map { ($0, Sample.median(of: samples[$0]!)) }
        for tool in format.tools {
            let attributes = try FileManager.default.attributesOfItem(atPath: Context.archive(of: tool, format: format, in: directory))
            group.sizes[tool] = (attributes[.size] as! NSNumber).intValue
        }
        if !workload.name.hasManyEntries { try Shell.remove(directory) }
        return group
    }

    /// Where one operation runs.
    private struct Context {
        let workload: Workload
        let format: BenchFormat
        let directory: String
        let round: Int

        static func archive(of tool: Tool, format: BenchFormat, in directory: String) -> String {
            "\(directory)/\(tool.packer).\(format.rawValue)"
        }

        func archive(of tool: Tool) -> String {
            Self.archive(of: tool, format: format, in: directory)
        }
    }

    /// Runs one operation and the `sync` after it; in the untimed round,
    /// checks what an unpack made.
    private func perform(_ operation: Operation, _ context: Context, metadataDiffers: inout [Operation]) throws -> Sample {
        switch operation {
        case .pack(let tool):
            let archive = context.archive(of: tool)
            if FileManager.default.fileExists(atPath: archive) { try FileManager.default.removeItem(atPath: archive) }
            let names = context.workload.topLevelNames
            let source = context.workload.path
            var sample = switch tool {
            case .ours: try Shell.measure([Shell.executable, Child.pack.rawValue, context.format.rawValue, source, archive], in: context.directory)
            case .bsdtar: try Shell.measure(["bsdtar", "-cf", archive] + context.format.bsdtarFlags + names, in: source)
            case .infoZip: try Shell.measure(["zip", "-qry", archive] + names, in: source)
            }
            sample.syncSeconds = try Shell.sync()
            return sample
        case .unpack(let tool, let producer):
            let archive = context.archive(of: producer)
            let destination = "\(context.directory)/\(tool.unpacker)-from-\(producer.packer)-\(context.round)"
            var sample: Sample
            switch tool {
            case .ours:
                sample = try Shell.measure([Shell.executable, Child.unpack.rawValue, archive, destination], in: context.directory)
            case .bsdtar:
                try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false)
                sample = try Shell.measure(["bsdtar", "-xf", archive, "-C", destination], in: context.directory)
            case .infoZip:
                sample = try Shell.measure(["unzip", "-q", archive, "-d", destination], in: context.directory)
            }
            sample.syncSeconds = try Shell.sync()
            if context.round == 0, try !check(destination, against: context.workload, after: operation) {
                metadataDiffers.append(operation)
            }
            if !context.workload.name.hasManyEntries { try Shell.remove(destination) }
            return sample
        }
    }

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
            "python3", options.generator, "--out", url.deletingLastPathComponent().path, "--digest-only", url.lastPathComponent,
        ])
        return Workload.field("digest", of: summary.trimmingCharacters(in: .whitespacesAndNewlines)) == workload.field("digest")
    }

    // MARK: Formatting and facts

    private static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    private static func mebibytes(_ bytes: Double) -> String {
        String(format: "%.1f", bytes / 1_048_576)
    }

    /// Two decimals, or two significant digits below 0.1.
    private static func ratio(_ value: Double, _ baseline: Double) -> String {
        let ratio = value / baseline
        return String(format: ratio < 0.1 ? "%.2g" : "%.2f", ratio)
    }

    private static func peers() throws -> String {
        [
            try Shell.firstLine(of: ["bsdtar", "--version"], startingWith: "bsdtar"),
            try Shell.firstLine(of: ["zip", "-h"], startingWith: "Zip").replacingOccurrences(of: ". Usage:", with: ""),
            try Shell.firstLine(of: ["unzip", "-v"], startingWith: "UnZip"),
        ].joined(separator: "; ")
    }

    private static var machine: String {
        let info = ProcessInfo.processInfo
        return "\(info.activeProcessorCount) cores, \(info.physicalMemory >> 30) GiB, \(info.operatingSystemVersionString)"
    }

    private static var loadAverage: String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
