import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 23, item 4: SIGINT, SIGTERM and SIGHUP at random instants of
/// `pack`, `unpack`, `snapshot -o` and `verify` leave no temporary, and the
/// destination is the old one or the new one, whole; the run ends of the
/// signal (a shell sees 128 + it). What a SIGKILL leaves of `verify`, the
/// next `verify` removes.
@Suite struct InterruptionTests {
    /// A tree to work on, the outputs of a first, whole run of each command,
    /// and a private `$TMPDIR`.
    struct Workbench {
        let directory: TemporaryDirectory
        var temporary: URL { directory.appending("tmp") }

        init(_ name: String = #function) throws {
            directory = try TemporaryDirectory(name)
            var random = SplitMix64(seed: 4242)
            for index in 0..<240 {
                try Disk.write(Data(random.bytes(24_000, in: 0x61...0x7A)), to: directory.appending("src/d\(index % 8)/f\(index).txt"))
            }
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        }

        var environment: [String: String?] { ["TMPDIR": temporary.path] }

        func run(_ arguments: [String]) throws -> CommandResult {
            let executable = try #require(WrapInspectProcess.executableURL)
            return try ChildProcess.run(executable.path, arguments, in: directory.url, environment: environment)
        }

        /// Starts `arguments`, sends `signal` after `delay` seconds unless
        /// it ended before, and returns how it ended: (exit status, signal).
        func run(_ arguments: [String], signal: CInt, after delay: TimeInterval) throws -> (status: CInt, signal: CInt) {
            let pid = try spawnSilenced(arguments)
            usleep(useconds_t(delay * 1_000_000))
            kill(pid, signal)
            return ChildProcess.wait(for: pid)
        }

        /// Starts `arguments` and kills it outright (SIGKILL) as soon as
        /// it has made a temporary in `$TMPDIR`, however slowly the machine
        /// runs it; returns how it ended, and whether it ended by itself
        /// first. Only our temporaries count: ThreadSanitizer puts a file
        /// of its own there while a process starts.
        func killOnceItMadeItsFolder(_ arguments: [String]) throws -> (status: CInt, signal: CInt, ended: Bool) {
            let pid = try spawnSilenced(arguments)
            return ChildProcess.wait(for: pid, killingAfter: 120) { (try? leftovers())?.isEmpty == false }
        }

        /// Starts `arguments` with its output thrown away.
        private func spawnSilenced(_ arguments: [String]) throws -> pid_t {
            let executable = try #require(WrapInspectProcess.executableURL)
            let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
            defer { close(null) }
            return try ChildProcess.spawn(executable.path, arguments, in: directory.url, environment: environment,
                                          standardOutput: null, standardError: null)
        }

        /// Names in the work folder and in `$TMPDIR` that a run left.
        func leftovers() throws -> [String] {
            try (Disk.names(in: directory.url) + Disk.names(in: temporary)).filter { $0.contains(".fwk-save-") || $0.hasPrefix("wrapinspect-") }
        }

        func bytes(_ name: String) -> Data? {
            try? Data(contentsOf: directory.appending(name))
        }
    }

    /// Each command, the output it replaces, and how to read that output
    /// back for comparison.
    static let commands: [(name: String, arguments: [String], output: String?)] = [
        ("pack", ["pack", "--reproducible", "src", "out.tar.gz"], "out.tar.gz"),
        ("unpack", ["unpack", "--force", "whole.tar", "out"], "out"),
        ("snapshot", ["snapshot", "src", "-o", "out.json"], "out.json"),
        ("verify", ["verify", "--via", "bundle,zip,tar.gz", "src"], nil),
    ]

    /// What stands for the output: a file's bytes, a folder's digest.
    static func state(of output: String, in bench: Workbench) throws -> Data? {
        guard FileManager.default.fileExists(atPath: bench.directory.appending(output).path) else { return nil }
        if output == "out" {
            return Data(try bench.run(["digest", "out"]).stdoutBytes)
        }
        return bench.bytes(output)
    }

    @Test(arguments: commands.map(\.name))
    func aSignalLeavesNoTemporaryAndTheOldOrTheNewOutput(command: String) throws {
        let (_, arguments, output) = try #require(Self.commands.first { $0.name == command })
        let bench = try Workbench()
        let whole = try bench.run(["pack", "src", "whole.tar"])
        try #require(whole.status == 0, "\(whole.stderr)")
        // An old output in place, then what a whole run makes.
        var old: Data?
        if let output {
            let made = try bench.run(command == "unpack" ? ["unpack", "whole.tar", "out"] : arguments)
            try #require(made.status == 0, "\(made.stderr)")
            if command == "unpack" { try Disk.write("old", to: bench.directory.appending("out/old.txt")) }
            old = try Self.state(of: output, in: bench)
        }
        let start = Date()
        let first = try bench.run(arguments)
        var expected = Date().timeIntervalSince(start)
        try #require(first.status <= 1, "\(first.stderr)")
        let new = try output.map { try Self.state(of: $0, in: bench) }

        var random = SplitMix64(seed: 23)
        let signals = [SIGINT, SIGTERM, SIGHUP]
        var landed = 0
        for run in 0..<40 where landed < 6 {
            let signal = signals[run % 3]
            let delay = Double(random.next() % 1000) / 1000 * expected * 1.1
            let (status, ended) = try bench.run(arguments, signal: signal, after: delay)
            if ended == signal {
                landed += 1
            } else {
                #expect(ended == 0 && status <= 1, "\(command) ended with status \(status), signal \(ended)")
                expected = max(expected, delay)
            }
            #expect(try bench.leftovers() == [], "\(command), signal \(signal) after \(delay) s")
            if let output {
                let now = try Self.state(of: output, in: bench)
                #expect(now == old || now == new, "\(command): \(output) is neither the old nor the new one")
            }
        }
        #expect(landed >= 3, "\(command): \(landed) signals landed mid-run")
    }

    /// `verify` killed outright leaves its folder, locked by a dead
    /// process; the next `verify` removes it.
    @Test func theNextVerifyRemovesWhatAKilledOneLeft() throws {
        let bench = try Workbench()
        let arguments = ["verify", "--via", "bundle,zip,tar.gz", "src"]
        let ended = try bench.killOnceItMadeItsFolder(arguments)
        try #require(!ended.ended, "verify ended by itself (status \(ended.status)) before the kill")
        try #require(try bench.leftovers().count > 0, "the killed verify left no folder behind")
        let finished = try bench.run(arguments)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try bench.leftovers() == [])
    }
}
