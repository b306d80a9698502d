import Foundation

/// Child processes: measured commands, clean-up, `sync`, the workload
/// generator and the versions of the peers.
package enum Shell {
    /// Runs `executable` with `arguments` and returns its standard output;
    /// throws unless it exits with status 0.
    @discardableResult
    package static func run(_ executable: String, _ arguments: [String]) throws -> String {
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
    /// RSS; throws unless it exits with `status` (a diff tool's 1 says the
    /// trees differ).
    package static func measure(_ command: [String], in directory: String, status: Int = 0) throws -> Sample {
        let line = try run(sibling("rusage-exec"), [directory] + command)
        let figures = line.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard figures.count == 5 else { throw BenchError("rusage-exec printed \(line.debugDescription)") }
        guard Int(figures[0]) == status else {
            throw BenchError("`\(quoted(command))` in \(directory) exited with status \(Int(figures[0])), not \(status)")
        }
        return Sample(seconds: figures[1], userSeconds: figures[2], systemSeconds: figures[3], peakKiB: figures[4])
    }

    /// Seconds that `sync` takes: it flushes every file system's dirty data
    /// to disk, so that no step pays for the previous one's writeback.
    @discardableResult
    package static func sync() throws -> Double {
        try timed { try run("/bin/sync", []) }.seconds
    }

    /// `cp -a source destination`.
    package static func copy(_ source: String, to destination: String) throws {
        try run("/bin/cp", ["-a", source, destination])
    }

    /// `rm -rf path`.
    package static func remove(_ path: String) throws {
        try run("/bin/rm", ["-rf", path])
    }

    /// This program, for the children that run its hidden subcommands.
    package static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// A program of this package built beside this one (`rusage-exec`, `bundle-bench`).
    package static func sibling(_ name: String) -> String {
        URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// The first line of what `command` prints that starts with `prefix`,
    /// for the peers' versions.
    package static func firstLine(of command: [String], startingWith prefix: String) throws -> String {
        let output = try run("/usr/bin/env", command)
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw BenchError("`\(quoted(command))` printed no line starting with \(prefix)")
        }
        return String(line)
    }

    /// A command line as a shell would take it back.
    package static func quoted(_ arguments: [String]) -> String {
        arguments.map { argument in
            let plain = !argument.isEmpty && argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
            return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }.joined(separator: " ")
    }
}

/// Seconds `body` takes on the monotonic clock, and what it returned, so
/// that releasing the result is not timed.
package func timed<T>(_ body: () throws -> T) rethrows -> (seconds: Double, result: T) {
    let start = ContinuousClock.now
    let result = try body()
    let elapsed = (ContinuousClock.now - start).components
    return (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, result)
}

/// Progress, on standard error, after the program's name.
package func log(_ message: String) {
    let program = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
    FileHandle.standardError.write(Data((program + ": " + message + "\n").utf8))
}

/// A failure, told in a sentence.
package struct BenchError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
