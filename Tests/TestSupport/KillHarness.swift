import Foundation
import Glibc

/// Kills a child process (`fwk-test-child`) with SIGKILL at random instants
/// of an operation on a target, and checks what each kill left: the
/// harness of the tests of interrupted writes.
///
/// The child says when its operation starts (`--announce-start`); a kill
/// waits a random time up to a little more than the operation's duration
/// (measured, then followed from run to run) from then, so that almost
/// every kill lands mid-operation whatever the cost of starting a process.
/// Runs go on until the wanted number of kills landed before the child
/// exited: a loaded machine makes a test take more runs, not fail.
public enum KillHarness {
    /// How one run of the child ended.
    public struct Run {
        public var pid: pid_t
        /// The exit status, when the child exited.
        public var status: CInt
        /// The signal that ended the child, 0 when it exited.
        public var signal: CInt
        public var stderr: String
        /// Seconds from the announced start of the operation to the child's end.
        public var duration: TimeInterval

        /// Whether the SIGKILL landed before the child exited.
        public var killed: Bool { signal == SIGKILL }

        /// Whether the child exited with status 0.
        public var succeeded: Bool { signal == 0 && status == 0 }

        /// How the child ended, and what it said on standard error.
        public var ending: String {
            (signal == 0 ? "exited with status \(status)" : "died of signal \(signal)") + (stderr.isEmpty ? "" : ": \(stderr)")
        }
    }

    /// What a series of runs came to.
    public struct Tally: Sendable, CustomStringConvertible {
        /// Runs killed mid-operation.
        public var killed = 0
        /// Runs that finished before their kill.
        public var finished = 0

        public var description: String { "\(killed) killed mid-operation, \(finished) finished" }
    }

    /// A broken promise, thrown so that the test fails with what was found.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(_ description: String) {
            self.description = description
        }
    }

    public static let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child")

    /// How many kills a test makes: `full` at full size (`make test`,
    /// where the kills test atomicity), 4 in a reduced run (``TestSizes``:
    /// the sanitizer runs, where what is new is the writer's memory and
    /// threads, which its finished runs check, and a killed run's leftovers,
    /// which the next removes). Four kills still catch a writer that writes
    /// in place; a writer whose window is only its last few milliseconds
    /// needs the full count.
    public static func kills(full: Int) -> Int {
        TestSizes.pick(full: full, reduced: 4)
    }

    /// Runs `fwk-test-child arguments...` to its end and returns how long
    /// its operation took; throws unless it succeeded.
    public static func measure(_ arguments: [String]) throws -> TimeInterval {
        let run = try run(arguments, killingAfter: nil)
        guard run.succeeded else {
            throw Failure("fwk-test-child \(arguments.joined(separator: " ")) \(run.ending)")
        }
        return run.duration
    }

    /// Runs `fwk-test-child arguments...` and, with `delay`, sends it
    /// SIGKILL that many seconds after its operation started, unless it
    /// ended before.
    ///
    /// The child is spawned and waited for by ``ChildProcess``. Its
    /// standard output is a pipe on which it announces its start; its
    /// standard error goes through a pipe read once it has ended: a child
    /// writes one line of error at most.
    public static func run(_ arguments: [String], killingAfter delay: TimeInterval?) throws -> Run {
        let announcements = try pipe()
        let errors = try pipe()
        defer { close(announcements.read); close(errors.read) }
        let spawned = Result {
            try ChildProcess.spawn(child.path, arguments + ["--announce-start"], standardOutput: announcements.write, standardError: errors.write)
        }
        close(announcements.write)
        close(errors.write)
        let pid = try spawned.get()

        // "started\n", or nothing if the child failed before its operation.
        var started = [UInt8](repeating: 0, count: 8)
        let announced = read(announcements.read, &started, started.count) > 0
        let start = Date()
        // Wait for the delay or the end of the child's output (its exit),
        // whichever comes first, then kill.
        var output = pollfd(fd: announcements.read, events: Int16(POLLIN), revents: 0)
        if let delay, announced, poll(&output, 1, CInt(delay * 1000)) == 0 {
            kill(pid, SIGKILL)
        }
        let (status, signal) = ChildProcess.wait(for: pid)
        let duration = Date().timeIntervalSince(start)
        return Run(
            pid: pid, status: status, signal: signal,
            stderr: String(decoding: FileHandle(fileDescriptor: errors.read).readDataToEndOfFile(), as: UTF8.self),
            duration: duration)
    }

    /// A pipe whose ends are closed in every program the test process runs
    /// (`FD_CLOEXEC`), so that a child that another test starts meanwhile
    /// does not hold it open. (Swift's Glibc module has no `pipe2`.)
    public static func pipe() throws -> (read: CInt, write: CInt) {
        var fds: [CInt] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw Failure("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Runs the child until `kills` runs were killed mid-operation (or
    /// `maximumRuns` runs were made), each killed at a random instant up to
    /// 1.1 × the operation's expected duration, then once more to its end.
    /// The expected duration starts at `duration` and follows the load of
    /// the machine: a run that finishes before its kill sets it to what that
    /// run took, and each kill makes it 5% longer, so that the kills keep
    /// reaching the end of the operation (where the swap is) however its
    /// speed changes.
    ///
    /// `prepare` readies each run and returns its arguments; `check` judges
    /// the target after it. After every run the target's surroundings are
    /// checked too (``Surroundings``): nothing else in its directory
    /// changed, and temporaries are left only by killed runs, never after a
    /// run that finished.
    public static func killRepeatedly(
        target: URL, kills: Int, maximumRuns: Int, duration: TimeInterval,
        prepare: () throws -> [String], check: (Run) throws -> Void
    ) throws -> Tally {
        let surroundings = try Surroundings(of: target)
        var tally = Tally()
        var killedChildren: Set<pid_t> = []
        var expected = duration
        for _ in 0..<maximumRuns where tally.killed < kills {
            let run = try run(prepare(), killingAfter: Double.random(in: 0...(expected * 1.1)))
            if run.killed {
                tally.killed += 1
                killedChildren.insert(run.pid)
                expected *= 1.05
            } else {
                guard run.succeeded else { throw Failure("a run that was not killed \(run.ending)") }
                tally.finished += 1
                expected = run.duration
            }
            try surroundings.check(leftoversOf: run.killed ? killedChildren : [])
            try check(run)
        }
        let last = try run(prepare(), killingAfter: nil)
        guard last.succeeded else { throw Failure("the last run \(last.ending)") }
        try surroundings.check(leftoversOf: [])
        try check(last)
        return tally
    }
}

extension KillHarness {
    /// The loop of every test of an interrupted write: writes version A of
    /// `target`, then version B (`fwk-test-child write(version)...`, each
    /// run to its end; the second one's duration starts the kills' timing),
    /// then alternates the two versions, killing the writer at random
    /// instants (``killRepeatedly(target:kills:maximumRuns:duration:prepare:check:)``)
    /// until `kills` runs were killed mid-write.
    ///
    /// After every run, `contents` reads the target, which must be one of
    /// the two versions whole (a writer that is not atomic leaves a mix, a
    /// part or nothing), and after a run that finished, the version that run
    /// wrote. The two versions must read differently.
    public static func alternateVersions<Contents: Equatable>(
        of target: URL, kills: Int, maximumRuns: Int = 300,
        writing write: (_ version: String) -> [String],
        contents: (URL) throws -> Contents
    ) throws -> Tally {
        let names = ["A", "B"]
        _ = try measure(write(names[0]))
        let a = try contents(target)
        let duration = try measure(write(names[1]))
        let versions = [a, try contents(target)]
        guard versions[0] != versions[1] else { throw Failure("versions A and B of \(target.lastPathComponent) read the same") }

        var current = 1
        var writing = 0
        return try killRepeatedly(target: target, kills: kills, maximumRuns: maximumRuns, duration: duration) {
            writing = 1 - current
            return write(names[writing])
        } check: { run in
            let onDisk = try contents(target)
            guard let found = versions.firstIndex(of: onDisk) else {
                throw Failure("after \(run.killed ? "a kill" : "a finished run") \(target.lastPathComponent) is neither version")
            }
            guard run.killed || found == writing else {
                throw Failure("a finished run writing version \(names[writing]) left version \(names[found])")
            }
            current = found
        }
    }
}

/// What is around a target: the other names in its directory and the
/// status of everything below them. An operation on the target must change
/// nothing of it; it may leave temporaries of its own
/// (`.<target>.fwk-save-<pid>-...`) and the document's lock file
/// (`.<target>.fwk-lock`) only when killed, and the next run that
/// finishes removes them.
public struct Surroundings {
    public let target: URL
    private let siblings: [String: [String: [Int]]]

    public init(of target: URL) throws {
        self.target = target
        let parent = target.deletingLastPathComponent()
        var siblings: [String: [String: [Int]]] = [:]
        for name in try Disk.names(in: parent) where name != target.lastPathComponent {
            siblings[name] = try Self.status(below: parent.appendingPathComponent(name))
        }
        self.siblings = siblings
    }

    /// Throws unless the directory holds the siblings, unchanged, the
    /// target or nothing in its place, and beside them only temporaries of
    /// the target made by the processes `pids` (and, when there are such,
    /// the lock file one of them held).
    public func check(leftoversOf pids: Set<pid_t>) throws {
        let parent = target.deletingLastPathComponent()
        let temporary = "." + target.lastPathComponent + ".fwk-save-"
        for name in try Disk.names(in: parent) where name != target.lastPathComponent {
            if let sibling = siblings[name] {
                guard try Self.status(below: parent.appendingPathComponent(name)) == sibling else {
                    throw KillHarness.Failure("\(name), beside the target, changed")
                }
            } else if name.hasPrefix(temporary), let pid = pid_t(name.dropFirst(temporary.count).prefix { $0 != "-" }), pids.contains(pid) {
                continue
            } else if name == "." + target.lastPathComponent + ".fwk-lock", !pids.isEmpty {
                continue
            } else {
                throw KillHarness.Failure("\(name) appeared beside the target (temporaries allowed from \(pids.sorted()))")
            }
        }
        for name in siblings.keys where !FileManager.default.fileExists(atPath: parent.appendingPathComponent(name).path) {
            throw KillHarness.Failure("\(name), beside the target, disappeared")
        }
    }

    /// Each item below `url` (itself included) by relative path, with its
    /// `lstat` fields that any change touches: inode, mode, size, link
    /// count, modification and change times (writing, renaming in or out,
    /// linking, changing modes or extended attributes all set the change
    /// time). Cheaper than reading contents, and as strict.
    private static func status(below url: URL) throws -> [String: [Int]] {
        var result: [String: [Int]] = [:]
        var pending = [""]
        while let relative = pending.popLast() {
            let path = relative.isEmpty ? url.path : url.path + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
            result[relative] = [Int(info.st_ino), Int(info.st_mode), Int(info.st_size), Int(info.st_nlink),
                                info.st_mtim.tv_sec, info.st_mtim.tv_nsec, info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
            if info.st_mode & S_IFMT == S_IFDIR {
                for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                    pending.append(relative.isEmpty ? name : relative + "/" + name)
                }
            }
        }
        return result
    }
}

extension Disk {
    /// Writes version `version` of a package at `url`: `files` regular files
    /// of `size` bytes each in ten directories, random letters that differ
    /// from version to version and compress poorly (so that packing takes a
    /// while), a third of them under names only this version has (so that a
    /// mix of two versions shows in names too), and one file that is the
    /// same in every version (so that incremental saves link it).
    public static func writeVersion(_ version: String, files: Int, size: Int, at url: URL) throws {
        var generator = SplitMix64(seed: version.utf8.reduce(0) { $0 &* 131 &+ UInt64($1) })
        let letters = Data(generator.bytes(1 << 16, in: 0x61...0x7A))
        for index in 0..<files {
            let folder = index % 3 == 0 ? "Only-\(version)" : "Shared"
            let start = index * 997 % (letters.count - size)
            try write(Data("\(version) \(index)\n".utf8) + letters[start..<(start + size)],
                      to: url.appendingPathComponent("\(folder)/\(index % 10)/page-\(index).txt"))
        }
        try write(String(repeating: "same in every version ", count: size / 22), to: url.appendingPathComponent("unchanged.txt"))
        try write("{\"version\": \"\(version)\"}", to: url.appendingPathComponent("index.json"))
    }
}
