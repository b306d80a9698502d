import BenchSupport
import Foundation

/// The zip-container document of issue 25: w4 zipped by ours (`wrapinspect
/// pack --first-stored mimetype`, untimed), then opened as a FileWrapper,
/// one 4 MiB media member read, and the document saved after a 1 KiB
/// change to one member, each beside its peers in the same rounds:
/// ZIPFoundation 0.9.20 opening it and replacing the member, `unzip -p`
/// reading it, `cp` copying the zip. Ours is today's reader and full save,
/// and the lazy tree and the incremental save (ZipContainer).
struct ZipDocumentBenchmark {
    let options: Options
    let work: Work
    var scratch: String { work.root + "/zip-document-scratch" }

    /// The member gen.py's docstring names for editing.
    static let editedMember = "content/part-0900.xml"

    /// One command of a row, and the tool it stands for.
    private struct Command {
        var tool: String
        var arguments: [String]
        /// The zip a save writes.
        var output: String?
        /// Untimed, before each run: removes or copies what the command writes.
        var prepare: () throws -> Void = {}
    }

    func measure(_ workload: Workload, into report: inout Report) throws {
        try work.makeFresh(scratch)
        let archive = scratch + "/w4.zip"
        log("w4: packing \(archive) (untimed) ...")
        try Shell.run(options.wrapinspect, ["pack", "--first-stored", "mimetype", workload.path, archive])
        let archiveSize = try Self.size(of: archive)
        let member = try Self.smallestMedia(in: workload.path)
        let edited = scratch + "/edited-" + URL(fileURLWithPath: Self.editedMember).lastPathComponent
        try Self.writeEditedCopy(of: workload.path + "/" + Self.editedMember, to: edited)
        let child = Shell.sibling("zip-document-child")

        let opening = [
            Command(tool: "ours today: ArchiveReader.fileWrapper", arguments: [child, "open", archive]),
            Command(tool: "ZIPFoundation: Archive(url:accessMode: .read)", arguments: [options.zipFoundationOpen, archive]),
            Command(tool: "ours: ZipContainer.fileWrapper", arguments: [child, "open-lazy", archive]),
        ]
        let reading = [
            Command(tool: "unzip -p", arguments: ["unzip", "-p", archive, member]),
            Command(tool: "ours: ZipContainer, readRegularFileContents", arguments: [child, "read-lazy", archive, member]),
            Command(tool: "ours: wrapinspect cat", arguments: [options.wrapinspect, "cat", archive, member]),
        ]
        let output = { (name: String) in scratch + "/saved-" + name + ".zip" }
        let zipFoundationCopy = output("zipfoundation")
        let saving = [
            Command(tool: "cp of the zip", arguments: ["cp", archive, output("cp")]) { try Self.removeFile(output("cp")) },
            Command(tool: "ours today: full save", arguments: [child, "save", archive, Self.editedMember, edited, output("full")], output: output("full")) {
                try Self.removeFile(output("full"))
            },
            Command(tool: "ZIPFoundation: remove + addEntry", arguments: [options.zipFoundationReplace, zipFoundationCopy, Self.editedMember, edited],
                    output: zipFoundationCopy) {
                try Self.removeFile(zipFoundationCopy)
                try Shell.run("/bin/cp", [archive, zipFoundationCopy])
                try Shell.sync()
            },
            Command(tool: "ours: ZipContainer.write", arguments: [child, "save-incremental", archive, Self.editedMember, edited, output("incremental")],
                    output: output("incremental")) {
                try Self.removeFile(output("incremental"))
            },
            Command(tool: "ours: ZipContainer.write, durability .deferred", arguments: [child, "save-deferred", archive, Self.editedMember, edited, output("deferred")],
                    output: output("deferred")) {
                try Self.removeFile(output("deferred"))
            },
        ]

        let repetitions = options.common.repetitions(of: workload.name)
        log("w4 zip document: 1 + \(repetitions) rounds of \(opening.count + saving.count) operations, 1 + \(Self.readRoundsFactor * repetitions) of \(reading.count) reads ...")
        let opens = try rounds(opening, repetitions) { command in try Self.selfReported(command.arguments, in: scratch) }
        // A read takes 20 ms, where a process's start varies by a few: five times the rounds.
        let reads = try rounds(reading, Self.readRoundsFactor * repetitions) { command in try Shell.measure(command.arguments, in: scratch) }
        let saves = try rounds(saving, repetitions) { command in try Benchmark.measureWithSync(command.arguments, in: scratch) }
        log("w4 zip document: checking what each read and save gave ...")
        try check(reading, member: workload.path + "/" + member)
        try check(saved: saving.compactMap(\.output), edited: edited, original: archive)

        var table = Table("zip document w4 (issue 25), medians of \(repetitions) timed runs (reads: \(Self.readRoundsFactor * repetitions))", columns: [
            "operation", "tool", "s", "÷ peer", "peer", "peak RSS MiB", "sync after s", "s + sync ÷ peer's",
        ], leading: 2)
        func add(_ operation: String, _ commands: [Command], _ samples: [[Sample]], peer: Int) {
            let medians = samples.map(Sample.median(of:))
            for (index, command) in commands.enumerated() {
                table.rows.append([
                    operation, command.tool, Formatting.seconds(medians[index].seconds),
                    Formatting.ratio(medians[index].seconds, medians[peer].seconds), commands[peer].tool,
                    Formatting.mebibytes(medians[index].peakKiB * 1024), Formatting.seconds(medians[index].syncSeconds),
                    Formatting.ratio(medians[index].seconds + medians[index].syncSeconds, medians[peer].seconds + medians[peer].syncSeconds),
                ])
            }
        }
        add("open and list", opening, opens, peer: 1)
        add("read \(member) (\(Formatting.mebibytes(Double(try Self.size(of: workload.path + "/" + member)))) MiB)", reading, reads, peer: 0)
        add("save after a 1 KiB change to \(Self.editedMember)", saving, saves, peer: 0)
        report.tables.append(table)
        // Ours in each row: the lazy open, `wrapinspect cat`, the incremental saves (synced, then deferred).
        let (open, read, save) = (opening.count - 1, reading.count - 1, saving.count - 2)
        report.targets += Self.targets(
            open: Sample.median(of: opens[open]), openTool: opening[open].tool,
            read: Sample.median(of: reads[read]), unzip: Sample.median(of: reads[0]), readTool: reading[read].tool,
            save: Sample.median(of: saves[save]), deferredSave: Sample.median(of: saves[save + 1]),
            copy: Sample.median(of: saves[0]), zipFoundation: Sample.median(of: saves[2]))
        report.fact("zip document", "w4 packed by ours with `wrapinspect pack --first-stored mimetype`: \(Formatting.mebibytes(Double(archiveSize))) MiB")
        report.notes.append(Self.note)
        try Shell.remove(scratch)
    }

    /// How many times as many rounds the reads take as the other rows.
    static let readRoundsFactor = 5

    static let note = "zip document (issue 25): w4 packed once, untimed, by `wrapinspect pack --first-stored mimetype w4 w4.zip`. Rounds interleave the tools, one untimed round first, which also checks the outputs (each read gives the member's bytes, each saved zip passes `unzip -tq` and holds the edited member). Open and list: each process times its own opening and walk of every entry's name and attributes (not its contents) and reports its peak RSS (`VmHWM`): `zip-document-child open` (`ArchiveReader.fileWrapper(contentsOf:limits: .unpacking)`, which reads every member; its default limit, 1 GiB of contents in memory, refuses w4), `zipfoundation-open` (`Archive(url:accessMode: .read)`, every entry's path, size and kind) and `zip-document-child open-lazy` (`ZipContainer.fileWrapper(contentsOf:)`). Read: whole processes under `rusage-exec`, output to /dev/null: `unzip -p w4.zip MEMBER` (the smallest media file, 4 MiB, stored), `zip-document-child read-lazy` (opens lazily and reads that member) and `wrapinspect cat w4.zip MEMBER` (which reads a zip by its central directory, the member alone), in \(readRoundsFactor) times as many rounds as the other rows (a read takes about 20 ms, of which a process's start varies by a few). Save after a 1 KiB change (1,024 bytes in the middle of content/part-0900.xml overwritten): whole processes with the `sync` after each, timed apart (\"sync after\"; ours calls `fsync` before renaming the zip into place, so its own time holds its writeback, which `cp` and ZIPFoundation leave to the `sync`): `cp w4.zip COPY`, `zip-document-child save` (today: read the tree, replace the member's wrapper, `ArchiveWriter.write` to a new path), `zipfoundation-replace` on a fresh copy (copied and synced untimed; `Archive(url:accessMode: .update)`, `remove`, `addEntry(with:fileURL:compressionMethod: .deflate)`), `zip-document-child save-incremental` (open lazily, replace the wrapper, `ZipContainer.write` to a new path, synced: the default) and `save-deferred` (the same with `durability: .deferred`, left to the kernel's writeback as `cp` leaves its copy). Targets: open ≤ 50 ms and ≤ 40 MiB peak (the lazy open); read ≤ 1.0 × `unzip -p` (`wrapinspect cat`); save ≤ 1.3 × `cp` (the deferred save, which promises what `cp` does), the synced save ≤ 1.3 × `cp` with the sync after each counted for both, faster than ZIPFoundation, peak ≤ 40 MiB."

    /// Runs `commands` in one untimed round then `repetitions` timed ones,
    /// odd rounds in reverse order; returns each command's samples.
    private func rounds(_ commands: [Command], _ repetitions: Int, _ measure: (Command) throws -> Sample) throws -> [[Sample]] {
        var samples = Array(repeating: [Sample](), count: commands.count)
        for round in 0...repetitions {
            let order = round % 2 == 0 ? Array(commands.indices) : commands.indices.reversed()
            for index in order {
                try commands[index].prepare()
                let sample = try measure(commands[index])
                if round > 0 { samples[index].append(sample) }
            }
        }
        return samples
    }

    /// A child's own figures, `SECONDS PEAK_KIB ENTRIES` on its standard output.
    private static func selfReported(_ command: [String], in directory: String) throws -> Sample {
        let line = try Shell.run(command[0], Array(command.dropFirst()))
        let figures = line.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard figures.count == 3 else { throw BenchError("`\(Shell.quoted(command))` printed \(line.debugDescription)") }
        return Sample(seconds: figures[0], userSeconds: 0, systemSeconds: 0, peakKiB: figures[1])
    }

    /// Throws unless every read command gives the bytes of `member`.
    private func check(_ reading: [Command], member: String) throws {
        for command in reading {
            do {
                try Shell.run("/bin/sh", ["-c", #""$@" | cmp -s - "$0""#, member] + command.arguments)
            } catch {
                throw BenchError("\(command.tool) did not give the bytes of \(member)")
            }
        }
    }

    /// Throws unless each saved zip passes `unzip -tq`, holds `edited` as
    /// the edited member, and as many entries as the original.
    private func check(saved archives: [String], edited: String, original: String) throws {
        let entries = try Shell.run("/usr/bin/zipinfo", ["-1", original]).split(separator: "\n").count
        for archive in archives {
            do {
                try Shell.run("/usr/bin/unzip", ["-tq", archive])
                try Shell.run("/bin/sh", ["-c", #"unzip -p "$0" "$1" | cmp -s - "$2""#, archive, Self.editedMember, edited])
            } catch {
                throw BenchError("\(archive): not a sound zip with the edited \(Self.editedMember)")
            }
            let count = try Shell.run("/usr/bin/zipinfo", ["-1", archive]).split(separator: "\n").count
            guard count == entries else { throw BenchError("\(archive) has \(count) entries, \(original) \(entries)") }
        }
    }

    /// The targets of issue 25, item 6, on ours in each row.
    private static func targets(
        open: Sample, openTool: String, read: Sample, unzip: Sample, readTool: String,
        save: Sample, deferredSave: Sample, copy: Sample, zipFoundation: Sample
    ) -> [TargetResult] {
        let limit = 40.0 * 1024
        return [
            TargetResult("zip document: open (\(openTool))", workload: "w4", ours: Formatting.seconds(open.seconds) + " s",
                         limit: "≤ 0.050 s", met: open.seconds <= 0.050),
            TargetResult("zip document: open, peak RSS", workload: "w4", ours: Formatting.mebibytes(open.peakKiB * 1024) + " MiB",
                         limit: "≤ 40 MiB", met: open.peakKiB <= limit),
            TargetResult("zip document: read a 4 MiB member (\(readTool))", workload: "w4", ours: Formatting.seconds(read.seconds) + " s",
                         peer: "unzip -p: \(Formatting.seconds(unzip.seconds)) s", ratio: Formatting.ratio(read.seconds, unzip.seconds),
                         limit: "≤ 1.00", met: read.seconds <= unzip.seconds),
            TargetResult("zip document: save after a 1 KiB change, left to writeback as cp leaves its copy (ZipContainer.write, .deferred)",
                         workload: "w4", ours: Formatting.seconds(deferredSave.seconds) + " s",
                         peer: "cp: \(Formatting.seconds(copy.seconds)) s", ratio: Formatting.ratio(deferredSave.seconds, copy.seconds),
                         limit: "≤ 1.30", met: deferredSave.seconds <= 1.3 * copy.seconds),
            TargetResult("zip document: that save on disk (ZipContainer.write, .synced, the default), with the sync after each",
                         workload: "w4", ours: Formatting.seconds(save.seconds + save.syncSeconds) + " s",
                         peer: "cp + sync: \(Formatting.seconds(copy.seconds + copy.syncSeconds)) s",
                         ratio: Formatting.ratio(save.seconds + save.syncSeconds, copy.seconds + copy.syncSeconds),
                         limit: "≤ 1.30", met: save.seconds + save.syncSeconds <= 1.3 * (copy.seconds + copy.syncSeconds)),
            TargetResult("zip document: the synced save against ZIPFoundation's", workload: "w4", ours: Formatting.seconds(save.seconds) + " s",
                         peer: "ZIPFoundation: \(Formatting.seconds(zipFoundation.seconds)) s", ratio: Formatting.ratio(save.seconds, zipFoundation.seconds),
                         limit: "< 1.00", met: save.seconds < zipFoundation.seconds),
            TargetResult("zip document: the synced save, peak RSS", workload: "w4", ours: Formatting.mebibytes(save.peakKiB * 1024) + " MiB",
                         limit: "≤ 40 MiB", met: save.peakKiB <= limit),
        ]
    }

    /// The smallest file under `media/` of the workload, as a path inside it.
    private static func smallestMedia(in root: String) throws -> String {
        let enumerator = FileManager.default.enumerator(atPath: root + "/media")
        var best: (path: String, size: Int)?
        while let relative = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/media/" + relative)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            let size = (attributes[.size] as! NSNumber).intValue
            if best.map({ size < $0.size || size == $0.size && relative.utf8.lexicographicallyPrecedes($0.path.utf8) }) ?? true {
                best = ("media/" + relative, size)
            }
        }
        guard let best else { throw BenchError("\(root)/media holds no file") }
        return best.path
    }

    /// `source` with 1,024 bytes in its middle overwritten: the edited member's new contents.
    private static func writeEditedCopy(of source: String, to destination: String) throws {
        var contents = try Data(contentsOf: URL(fileURLWithPath: source))
        guard contents.count >= 2048 else { throw BenchError("\(source) is too small to change 1 KiB of") }
        let start = contents.startIndex + contents.count / 2 - 512
        contents.replaceSubrange(start..<start + 1024, with: Data(repeating: UInt8(ascii: "#"), count: 1024))
        try contents.write(to: URL(fileURLWithPath: destination))
    }

    private static func size(of path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).intValue
    }

    private static func removeFile(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }
}
