import Foundation
import Glibc

/// The one way the tests run another program: `posix_spawn`, output to
/// unlinked temporary files (which, unlike a pipe, cannot fill and stall
/// the child), and `waitpid`, which sleeps in the kernel, rather than
/// Foundation's `Process`, whose `waitUntilExit()` turns a run loop on
/// the waiting thread.
///
/// Called from an `async` test, the `async` overloads (which Swift picks
/// there) wait on a thread of their own, so that the test holds none of
/// the cooperative pool's threads, of which there are as many as cores.
public enum ChildProcess {
    /// A program that could not be started.
    public struct SpawnFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `executable` (a path) with `arguments` in `directory` (the
    /// test's own when nil), with the test's environment changed by
    /// `environment` (a nil value unsets the variable), standard input
    /// from `/dev/null`, and waits for it.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String?] = [:]
    ) throws -> CommandResult {
        let output = try temporaryFile()
        defer { fclose(output) }
        let errors = try temporaryFile()
        defer { fclose(errors) }
        let pid = try spawn(executable, arguments, in: directory, environment: environment,
                            standardOutput: fileno(output), standardError: fileno(errors))
        let (status, signal) = wait(for: pid)
        let stdout = contents(of: fileno(output))
        return CommandResult(
            status: signal == 0 ? status : signal, exited: signal == 0,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: contents(of: fileno(errors)), as: UTF8.self),
            stdoutBytes: stdout)
    }

    /// ``run(_:_:in:environment:)``, waited for on a thread of its own.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String?] = [:]
    ) async throws -> CommandResult {
        try await onThreadOfItsOwn { try run(executable, arguments, in: directory, environment: environment) }
    }

    /// Starts `executable arguments...` with its standard output and error
    /// on the descriptors given, and input from `standardInput` (from
    /// `/dev/null` when nil); returns its process ID, for ``wait(for:)``.
    public static func spawn(
        _ executable: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String?] = [:],
        standardInput: CInt? = nil, standardOutput: CInt, standardError: CInt
    ) throws -> pid_t {
        guard !TestTier.fast else {
            throw SpawnFailure(description: "\(executable) would start in the fast tier: mark the suite or test .startsProcesses")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        if let directory {
            guard let addChdir = Self.addChdir else { throw SpawnFailure(description: "glibc has no posix_spawn_file_actions_addchdir_np") }
            guard addChdir(&actions, directory.path) == 0 else { throw SpawnFailure(description: "cannot run in \(directory.path)") }
        }
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw SpawnFailure(description: "cannot run \(executable): \(String(cString: strerror(spawned)))") }
        return pid
    }

    /// Waits for the child `pid` to end, killing it (SIGKILL) once
    /// `seconds` have passed or `condition` holds, whichever comes first:
    /// its exit status, the signal that ended it, and whether it ended by
    /// itself; for a test that proves it does not hang, or that kills it
    /// at a chosen point of its work rather than at a guessed time.
    public static func wait(
        for pid: pid_t, killingAfter seconds: TimeInterval, orOnce condition: () -> Bool = { false }
    ) -> (status: CInt, signal: CInt, ended: Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        var status: CInt = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline || condition() {
                kill(pid, SIGKILL)
                let (status, signal) = wait(for: pid)
                return (status, signal, false)
            }
            usleep(2_000)
        }
        return ((status >> 8) & 0xFF, status & 0x7F, true)
    }

    /// Waits for the child `pid` to end (`waitpid`): its exit status, and
    /// the signal that ended it (0 when it exited).
    public static func wait(for pid: pid_t) -> (status: CInt, signal: CInt) {
        var status: CInt = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        return ((status >> 8) & 0xFF, status & 0x7F)
    }

    /// An unlinked temporary file (`tmpfile`), closed in the programs that
    /// other tests start meanwhile (`FD_CLOEXEC`).
    private static func temporaryFile() throws -> UnsafeMutablePointer<FILE> {
        guard let file = tmpfile() else { throw SpawnFailure(description: "tmpfile: \(String(cString: strerror(errno)))") }
        _ = fcntl(fileno(file), F_SETFD, FD_CLOEXEC)
        return file
    }

    /// All that was written to the file `fd`, read from its start (`pread`).
    private static func contents(of fd: CInt) -> [UInt8] {
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bytes.count)) }
            if count > 0 {
                bytes += block[..<count]
            } else if count == 0 || errno != EINTR {
                return bytes
            }
        }
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29), which Swift's
    /// Glibc module does not export.
    private static let addChdir: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> CInt)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> CInt).self)
    }()
}

/// Runs `body` on a thread of its own and waits for it without holding one
/// of Swift Concurrency's threads (there are as many as cores): for a test
/// that blocks for seconds waiting on child processes, so that the tests
/// beside it go on meanwhile.
public func onThreadOfItsOwn<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
