import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// Issue 33, item 2: `cat` of a bundle's file opens it without waiting
/// (`O_NONBLOCK`) and checks its kind on the descriptor, so that a FIFO,
/// at the path from the start or swapped in while `cat` runs, is refused
/// and never hangs it.
@Suite struct CatFIFOTests {
    /// Tells the swapping thread to stop.
    final class StopFlag: Sendable {
        let value = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `cat bundle member` with output thrown away; kills it after
    /// `limit` seconds: (exit status, whether it ended by itself, standard error).
    static func cat(in directory: TemporaryDirectory, limit: TimeInterval = 20) throws -> (status: CInt, ended: Bool, stderr: String) {
        let executable = try #require(WrapInspectProcess.executableURL)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(null) }
        let errors = directory.appending("stderr-\(UInt64.random(in: 0...UInt64.max))")
        let errorFd = open(errors.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(errorFd) }
        let pid = try ChildProcess.spawn(executable.path, ["cat", "bundle", "dir/member"], in: directory.url,
                                         standardOutput: null, standardError: errorFd)
        let (status, _, ended) = ChildProcess.wait(for: pid, killingAfter: limit)
        let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        unlink(errors.path)
        return (status, ended, message)
    }

    @Test func aFIFOAtThePathIsRefusedPromptly() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.appending("bundle/dir"), withIntermediateDirectories: true)
        try #require(mkfifo(directory.appending("bundle/dir/member").path, 0o600) == 0)
        let start = Date()
        let result = try Self.cat(in: directory)
        #expect(result.ended, "cat waited on the FIFO")
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(result.status == 2)
        #expect(result.stderr == "wrapinspect: bundle: \"dir/member\": the member is a FIFO, not a regular file\n", "\(result.stderr)")
    }

    /// A thread swaps the member between a file and a FIFO (each made
    /// aside, then renamed over it) while `cat` runs again and again: each
    /// run prints the file or refuses the FIFO, and none hangs.
    @Test func aFileSwappedForAFIFOWhileCatRunsNeverHangsIt() throws {
        let directory = try TemporaryDirectory()
        let member = directory.appending("bundle/dir/member").path
        try Disk.write("contents", to: directory.appending("bundle/dir/member"))
        let stop = StopFlag()
        let swapper = Thread {
            var round = 0
            while !stop.value.load(ordering: .relaxed) {
                let aside = member + ".new"
                if round % 2 == 0 {
                    _ = mkfifo(aside, 0o600)
                } else {
                    let fd = open(aside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                    _ = write(fd, "contents", 8)
                    close(fd)
                }
                _ = rename(aside, member)
                round += 1
                usleep(useconds_t(round % 7 * 50))
            }
            stop.done.signal()
        }
        swapper.start()
        defer {
            stop.value.store(true, ordering: .relaxed)
            stop.done.wait()
        }
        var refused = 0
        for _ in 0..<TestSizes.pick(full: 120, reduced: 40) {
            let result = try Self.cat(in: directory)
            try #require(result.ended, "cat hung on a FIFO swapped in")
            #expect(result.status == 0 || result.stderr.contains("the member is a FIFO, not a regular file"), "\(result.stderr)")
            if result.status != 0 { refused += 1 }
        }
        #expect(refused > 0, "no run met the FIFO")
    }
}
