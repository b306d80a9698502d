import Foundation

/// What the kernel accounted for one child process, and how long the
/// `sync` after it took (the writeback it left behind).
struct Sample {
    var seconds: Double
    var userSeconds: Double
    var systemSeconds: Double
    var peakKiB: Double
    var syncSeconds = 0.0

    /// The median of each figure on its own.
    static func median(of samples: [Sample]) -> Sample {
        func middle(_ figure: KeyPath<Sample, Double>) -> Double {
            let sorted = samples.map { $0[keyPath: figure] }.sorted()
            let half = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2
        }
        return Sample(seconds: middle(\.seconds), userSeconds: middle(\.userSeconds), systemSeconds: middle(\.systemSeconds),
                      peakKiB: middle(\.peakKiB), syncSeconds: middle(\.syncSeconds))
    }
}

/// Child processes: the measured commands, clean-up, `sync` and the
/// workload generator.
enum Shell {
    /// Runs `executable` with `arguments` and returns its standard output;
    /// throws unless it exits with status 0.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError("`\(quoted([executable] + arguments))` failed with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs `command` in `directory` through `rusage-exec`, which forks it
    /// from a small process and reports its wall time, CPU times and peak
    /// RSS; throws unless it succeeds.
    static func measure(_ command: [String], in directory: String) throws -> Sample {
        let line = try run(rusageExec, [directory] + command)
        let figures = line.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard figures.count == 5 else { throw BenchError("rusage-exec printed \(line.debugDescription)") }
        guard figures[0] == 0 else { throw BenchError("`\(quoted(command))` in \(directory) failed with status \(Int(figures[0]))") }
        return Sample(seconds: figures[1], userSeconds: figures[2], systemSeconds: figures[3], peakKiB: figures[4])
    }

    /// Seconds that `sync` takes: it flushes every file system's dirty data
    /// to disk, so that no operation pays for the previous one's writeback.
    static func sync() throws -> Double {
        let start = ContinuousClock.now
        try run("/bin/sync", [])
        let elapsed = (ContinuousClock.now - start).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    /// `rm -rf path`.
    static func remove(_ path: String) throws {
        try run("/bin/rm", ["-rf", path])
    }

    /// This program, for the children that run our side.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// `rusage-exec`, built beside this program.
    static var rusageExec: String {
        URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("rusage-exec").path
    }

    /// The first line of what `command` prints that starts with `prefix`,
    /// for the peers' versions.
    static func firstLine(of command: [String], startingWith prefix: String) throws -> String {
        let output = try run("/usr/bin/env", command)
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw BenchError("`\(quoted(command))` printed no line starting with \(prefix)")
        }
        return String(line)
    }

    /// A command line as a shell would take it back.
    static func quoted(_ arguments: [String]) -> String {
        arguments.map { argument in
            let plain = !argument.isEmpty && argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
            return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }.joined(separator: " ")
    }
}

/// Progress, on standard error.
func log(_ message: String) {
    FileHandle.standardError.write(Data(("archive-bench: " + message + "\n").utf8))
}
