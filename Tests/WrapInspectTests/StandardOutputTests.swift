import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 23, item 3: output that cannot be written is an error. Every
/// command exits 2 with `wrapinspect: standard output: …` when standard
/// output is full, and exits 2 quietly when its reader has gone, SIGPIPE
/// ignored or not; nothing crashes.
@Suite struct StandardOutputTests {
    /// Every command that writes to standard output, on a small tree `src`:
    /// a full device and a pipe without a reader fail the first write.
    static let commands: [[String]] = [
        ["dump", "src"], ["dump", "--json", "src"], ["dump", "--digests", "src"],
        ["dump", "--stored", "src.tar"], ["dump", "--stored", "--json", "src.tar"],
        ["digest", "src"], ["diff", "src", "other"], ["diff", "--json", "src", "other"],
        ["verify", "--via", "bundle", "src"], ["verify", "--json", "--via", "zip", "src"],
        ["cat", "src.tar", "big.bin"], ["snapshot", "src"], ["snapshot", "src", "-o", "-"],
        ["pack", "--format", "tar", "src", "-"], ["unpack", "src.tar", "out"],
    ]

    static func tree() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 2323)
        try Disk.write(Data(random.bytes(3000)), to: directory.appending("src/big.bin"))
        for index in 0..<20 {
            try Disk.write("\(index)", to: directory.appending("src/d\(index % 10)/file-\(index).txt"))
        }
        try Disk.write("other", to: directory.appending("other/x.txt"))
        let packed = try WrapInspectProcess.run(["pack", "src", "src.tar"], in: directory.url)
        try #require(packed.status == 0, "\(packed.stderr)")
        return directory
    }

    @Test(arguments: commands)
    func aFullDeviceIsAnErrorNamingStandardOutput(arguments: [String]) throws {
        let directory = try Self.tree()
        let executable = try #require(WrapInspectProcess.executableURL)
        let script = "\"$W\" \"$@\" > /dev/full"
        let result = try ChildProcess.run("/bin/sh", ["-c", script, "sh"] + arguments, in: directory.url, environment: ["W": executable.path])
        #expect(result.exited && result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr == "wrapinspect: standard output: No space left on device\n", "\(arguments)")
    }

    /// Standard output a pipe whose reader has already gone: the first
    /// write fails with EPIPE (or SIGPIPE, when not ignored, which
    /// wrapinspect ignores so that it cleans up and exits 2).
    @Test(arguments: commands, [false, true])
    func aClosedPipeEndsTheCommandQuietly(arguments: [String], ignoringSIGPIPE: Bool) throws {
        let directory = try Self.tree()
        let executable = try #require(WrapInspectProcess.executableURL)
        let runner = """
            import os, signal, subprocess, sys
            r, w = os.pipe(); os.close(r)
            ignore = sys.argv[1] == "1"
            p = subprocess.run(sys.argv[2:], stdout=w, stderr=subprocess.PIPE,
                               preexec_fn=(lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if ignore else None)
            sys.stdout.write(str(p.returncode)); sys.stderr.write(p.stderr.decode())
            """
        let result = try ChildProcess.run(
            "/usr/bin/env", ["python3", "-c", runner, ignoringSIGPIPE ? "1" : "0", executable.path] + arguments, in: directory.url)
        #expect(result.stdout == "2", "\(arguments): exit \(result.stdout), \(result.stderr)")
        #expect(result.stderr == "", "\(arguments)")
    }
}
