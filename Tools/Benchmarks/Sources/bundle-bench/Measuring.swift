import Foundation

/// Seconds `body` takes on the monotonic clock, and what it returned, so
/// that releasing the result is not timed.
func timed<T>(_ body: () throws -> T) rethrows -> (seconds: Double, result: T) {
    let start = ContinuousClock.now
    let result = try body()
    let elapsed = (ContinuousClock.now - start).components
    return (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, result)
}

/// Runs `round` once untimed, to warm the caches, then `count` times, and
/// returns the median of each of the figures a round gives.
func medians(of count: Int, _ round: () throws -> [Double]) rethrows -> [Double] {
    _ = try round()
    var samples: [[Double]] = []
    for _ in 0..<count {
        samples.append(try round())
    }
    return samples[0].indices.map { index in median(samples.map { $0[index] }) }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Child processes: the peer (`cp -a`), clean-up and `sync`, the workload
/// generator and this tool's own memory-measuring child.
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

    /// `cp -a source destination`.
    static func copy(_ source: String, to destination: String) throws {
        try run("/bin/cp", ["-a", source, destination])
    }

    /// `sync`: flushes every file system's dirty data to disk.
    static func sync() throws {
        try run("/bin/sync", [])
    }

    /// `rm -rf path`.
    static func remove(_ path: String) throws {
        try run("/bin/rm", ["-rf", path])
    }

    /// A command line as a shell would take it back.
    static func quoted(_ arguments: [String]) -> String {
        arguments.map { argument in
            let plain = !argument.isEmpty && argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
            return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }.joined(separator: " ")
    }
}
