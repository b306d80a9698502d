import FileWrapperKit
import Foundation
import TestSupport

/// The corpus read in batches, for a reduced run (the sanitizer runs): a
/// process of ours under a sanitizer takes 0.1 s to start and end on an
/// idle machine and several times that on a busy one, and a process a step
/// makes about a thousand (90 s of the AddressSanitizer run, on its own,
/// on 2 cores; 4 s in batches). Here `fwk-test-child read-each`
/// reads many files in one process, through the library calls and limits
/// behind `wrapinspect dump` and `unpack` (and `dump --stored
/// --all-formats`), with the sanitizer watching all the same, and reports
/// each step of each file; the full-size run goes through `wrapinspect`
/// itself, a process a step.
///
/// A process that ends before it has reported every step stopped at the
/// step it had begun and not ended: that step of that file takes the
/// process's end (a signal, the sanitizer's status, SIGALRM at the time
/// limit), and the next process starts with the next file. A process that
/// reported every step and still failed as it exited (a leak, a race
/// reported at exit) has each of its files read again alone, so that the
/// failure names its file.
extension CorpusTests {
    /// Files a process reads: a dozen processes or so for the corpus.
    static let batchSize = 40

    /// The seconds each step of `read-each` gets, as ``run(_:environment:sanitized:seconds:memoryLimit:)``
    /// gives a process of ours.
    static var stepSeconds: Int { sanitizer == nil ? timeLimit : timeLimit * 5 }

    /// What `read-each` reported of one step of one file; no outcome for
    /// a step begun when the process ended.
    struct Step {
        var file: Int
        var name: String
        var outcome: Outcome?
    }

    /// One file's reading in a batch: its outcomes by step (`dump`,
    /// `unpack`, or `stored`), and what its unpack left in its area.
    struct FileRead {
        var steps: [String: Outcome] = [:]
        var leftInUnpackArea: [String] = []
    }

    /// Reads every file as ``listAll(_:workers:)`` does, `workers` processes at a time.
    static func readAllInBatches(_ files: [String], workers: Int) async throws -> [Result] {
        let scratch = try TemporaryDirectory()
        let read = try await readInBatches(files, stored: false, workers: workers, scratch: scratch.url)
        let storedFiles = files.filter { file in
            trouble[file] == nil && read[file]?.steps["dump"]?.error.contains("which this reader leaves out") == true
        }
        let stored = try await readInBatches(storedFiles, stored: true, workers: workers, scratch: scratch.url)
        let notRead = Outcome(status: -1, signaled: false, output: Data(), error: "not read: the process ended before this step", seconds: 0)
        return files.map { file in
            let read = read[file] ?? FileRead()
            return Result(file: file, ours: read.steps["dump"] ?? notRead, unpack: read.steps["unpack"] ?? notRead,
                          leftInUnpackArea: read.leftInUnpackArea, bsdtar: nil, oursLikeBsdtar: stored[file]?.steps["stored"])
        }
    }

    /// Reads `files` in batches of ``batchSize``, `workers` processes at a
    /// time, each waited for on a thread of its own
    /// (``onThreadsOfTheirOwn(count:workers:_:)``, as ``listAll(_:workers:)``).
    static func readInBatches(_ files: [String], stored: Bool, workers: Int, scratch: URL) async throws -> [String: FileRead] {
        let batches = stride(from: 0, to: files.count, by: batchSize).map { Array(files[$0..<min($0 + batchSize, files.count)]) }
        let lock = NSLock()
        nonisolated(unsafe) var merged: [String: FileRead] = [:]
        try await onThreadsOfTheirOwn(count: batches.count, workers: workers) { _, number in
            let folder = scratch.appendingPathComponent("\(stored ? "stored" : "read")-\(number)")
            let reads = try readBatch(batches[number], stored: stored, folder: folder)
            lock.withLock { merged.merge(reads) { $1 } }
        }
        return merged
    }

    /// Reads `files` with `read-each`, again from after the file a process
    /// stopped at, and each file alone when a process fails as it exits.
    static func readBatch(_ files: [String], stored: Bool, folder: URL) throws -> [String: FileRead] {
        var reads: [String: FileRead] = [:]
        var remaining = files[...]
        var round = 0
        while !remaining.isEmpty {
            round += 1
            let (steps, process, left) = try runReadEach(Array(remaining), stored: stored, folder: folder.appendingPathComponent("\(round)"))
            for (offset, names) in left.enumerated() {
                reads[remaining[remaining.startIndex + offset], default: FileRead()].leftInUnpackArea = names
            }
            for step in steps {
                reads[remaining[remaining.startIndex + step.file], default: FileRead()].steps[step.name] = step.outcome
            }
            if let stopped = steps.last, stopped.outcome == nil {
                // Ended during a step: that step takes the process's end; the next process starts after its file.
                reads[remaining[remaining.startIndex + stopped.file], default: FileRead()].steps[stopped.name] = process
                remaining = remaining[(remaining.startIndex + stopped.file + 1)...]
                continue
            }
            if process.status == 0, !process.signaled { break }
            guard !steps.isEmpty else {
                throw ReadEachFailure(description: "fwk-test-child read-each ended with status \(process.status) before its first file: \(process.error)")
            }
            // Failed after its last step, as a sanitizer's report at exit makes it: each file again alone names the one.
            if remaining.count > 1 {
                for (number, file) in remaining.enumerated() {
                    reads.merge(try readBatch([file], stored: stored, folder: folder.appendingPathComponent("alone-\(number)"))) { $1 }
                }
            } else if let file = remaining.first {
                for name in reads[file].map({ Array($0.steps.keys) }) ?? [] {
                    reads[file]?.steps[name] = process
                }
            }
            break
        }
        return reads
    }

    /// One `read-each` process over `files`: its steps in the order
    /// reported, how the process ended, and what each file's unpack left
    /// in its area (for a stored listing, nothing).
    static func runReadEach(_ files: [String], stored: Bool, folder: URL) throws -> (steps: [Step], process: Outcome, left: [[String]]) {
        let area = folder.appendingPathComponent("area")
        try FileManager.default.createDirectory(at: area, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: area) }
        if !stored {
            for index in files.indices {
                try FileManager.default.createDirectory(at: area.appendingPathComponent("\(index)"), withIntermediateDirectories: false)
            }
        }
        let list = folder.appendingPathComponent("list")
        try Data(files.map { corpus.appendingPathComponent($0).path + "\n" }.joined().utf8).write(to: list)
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        // The alarm limits each step; `timeout` (four steps' time) only a process the alarm cannot end.
        let process = try run([child, "read-each", list.path, area.path, "--seconds=\(stepSeconds)"] + (stored ? ["--stored"] : []),
                              seconds: timeLimit * 4)
        var steps: [Step] = []
        for line in lines(process.output) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let file = object["file"] as? Int, files.indices.contains(file), let name = object["step"] as? String
            else { throw ReadEachFailure(description: "read-each printed \(line)") }
            guard let status = object["status"] as? Int else {
                steps.append(Step(file: file, name: name, outcome: nil))
                continue
            }
            guard let error = object["error"] as? String, let seconds = object["seconds"] as? Double,
                  steps.last?.file == file, steps.last?.name == name, steps.last?.outcome == nil
            else { throw ReadEachFailure(description: "read-each ended a step it had not begun: \(line)") }
            steps[steps.count - 1].outcome = Outcome(status: Int32(status), signaled: false, output: Data(), error: error, seconds: seconds)
        }
        let left = stored ? [] : try files.indices.map {
            try FileManager.default.contentsOfDirectory(atPath: area.appendingPathComponent("\($0)").path).sorted()
        }
        return (steps, process, left)
    }

    /// `read-each` did not do as it says.
    struct ReadEachFailure: Error, CustomStringConvertible {
        var description: String
    }
}
