import Foundation
import Testing
import TestSupport

/// Issue 33, manifests as input, through the built `wrapinspect`: a
/// manifest over a limit is refused with exit 2 and an error naming the
/// file, the line and the flag that raises the limit (the flag that
/// raises it for archives); sizes whose sum passes `Int64.max` are a
/// refusal, not a trap; a manifest on standard input that never ends is
/// refused within seconds, in bounded memory; `/set` defaults are kept
/// once, not for each entry.
@Suite struct ManifestInputLimitCLITests {
    /// A JSON Lines manifest of the root and files `f1`... `fN`.
    static func jsonLines(files count: Int) -> String {
        var text = #"{"format":"fwk-manifest-lines","version":1,"source":{"kind":"bundle","name":"t"},"entries":\#(count + 1)}"# + "\n"
        text += #"{"path":"","kind":"directory"}"# + "\n"
        for index in 1...count {
            text += #"{"path":"f\#(index)","kind":"file","size":1}"# + "\n"
        }
        return text
    }

    @Test func aManifestOverTheEntryLimitIsRefusedNamingTheFlagThatRaisesIt() throws {
        let directory = try TemporaryDirectory()
        try Disk.write(Self.jsonLines(files: 1_000), to: directory.appending("m.jsonl"))
        let refused = try WrapInspectProcess.run(["dump", "--max-entries", "1000", "m.jsonl"], in: directory.url)
        #expect(refused.exited && refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("m.jsonl: line 1: the header declares 1001 entries, more than the limit of 1000 (raise it with --max-entries)"),
                "\(refused.stderr)")
        let read = try WrapInspectProcess.run(["dump", "--max-entries", "1001", "m.jsonl"], in: directory.url)
        #expect(read.status == 0, "\(read.stderr)")
    }

    /// Two sizes of `Int64.max`: before, `dump` added them up and died of
    /// an arithmetic-overflow trap (SIGILL).
    @Test func sizesWhoseSumPassesInt64MaxAreARefusal() throws {
        let directory = try TemporaryDirectory()
        let text = #"{"format":"fwk-manifest","version":1,"source":{"kind":"bundle","name":"t"},"entries":["#
            + #"{"path":"","kind":"directory"},{"path":"a","kind":"file","size":9223372036854775807},"#
            + #"{"path":"b","kind":"file","size":9223372036854775807}]}"# + "\n"
        try Disk.write(text, to: directory.appending("o.json"))
        // Each size alone is over the default limit; with no limit, their sum passes Int64.max.
        let overDefault = #"o.json: "a": entry 2: the sizes declared so far add up to more than the limit of 4294967296 bytes (raise it with --max-bytes)"#
        let overflowing = #"o.json: "b": entry 3: the sizes declared so far add up to more than the limit of 9223372036854775807 bytes (raise it with --max-bytes)"#
        for command in [["dump"], ["diff", "o.json"], ["digest"]] {
            for (flags, expected) in [([String](), overDefault), (["--max-bytes", String(Int64.max)], overflowing)] {
                let arguments = command + flags + ["o.json"]
                let result = try WrapInspectProcess.run(arguments, in: directory.url)
                #expect(result.exited && result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            }
        }
    }

    /// A JSON Lines header, then lines without end from a writer that
    /// keeps the pipe full: `dump -` refuses once more than a manifest
    /// within the (lowered) limits can take has come (1 KiB an entry and
    /// 1 MiB), exits 2 within seconds, and its peak resident memory stays
    /// near that bound, where it read on to 4 GB before and trapped.
    @Test func aManifestOnStandardInputThatNeverEndsIsRefusedInBoundedMemory() throws {
        let directory = try TemporaryDirectory()
        let executable = try #require(WrapInspectProcess.executableURL)
        let script = """
            import os, subprocess, sys, threading, time
            child = subprocess.Popen([sys.argv[1], "dump", "--max-entries", "1000", "--max-bytes", "1000000", "-"],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            def feed():
                line = b'{"path":"f","kind":"file","size":1}\\n' * 1024
                try:
                    child.stdin.write(b'{"format":"fwk-manifest-lines","version":1,"source":{"kind":"bundle","name":"t"},"entries":2}\\n')
                    while True:
                        child.stdin.write(line)
                except (BrokenPipeError, ValueError):
                    pass
            def watch():
                # A reader that reads on is stopped at 1 GiB or 30 s, not left to take the machine.
                deadline = time.monotonic() + 30
                while child.poll() is None:
                    with open(f"/proc/{child.pid}/status") as status:
                        resident = next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
                    if resident > 1 << 20 or time.monotonic() > deadline:
                        child.kill()
                    time.sleep(0.05)
            threading.Thread(target=feed, daemon=True).start()
            threading.Thread(target=watch, daemon=True).start()
            errors = child.stderr.read().decode()
            _, status, usage = os.wait4(child.pid, 0)
            print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
            print(errors.strip())
            """
        let result = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, executable.path], in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines
        try #require(lines.count >= 2, "\(result.stdout) \(result.stderr)")
        let fields = lines[0].split(separator: " ")
        #expect(fields.first == "2", "\(result.stdout)")
        #expect(lines[1].contains("standard input: the manifest file is longer than "), "\(result.stdout)")
        #expect(lines[1].hasSuffix("(raise it with --max-entries)"), "\(result.stdout)")
        let peak = try #require(fields.count == 2 ? Int(fields[1]) : nil) * 1024
        let bound = TestSizes.pick(full: 160 << 20, reduced: 256 << 20)
        #expect(peak < bound, "peak \(peak >> 20) MiB")
    }

    /// 200,000 keywords in one `/set`, then 50 entries: before, each entry
    /// kept a copy of all of them (over a gigabyte); now the keywords a
    /// manifest has no field for are not kept, and the defaults are shared.
    @Test func setDefaultsAreNotCopiedForEachEntry() throws {
        let directory = try TemporaryDirectory()
        let text = "#mtree\n/set type=file mode=0644 " + (0..<200_000).map { "k\($0)=value" }.joined(separator: " ") + "\n"
            + (0..<50).map { "f\($0) size=1\n" }.joined()
        try Disk.write(text, to: directory.appending("s.mtree"))
        // Measured with AddressSanitizer's quarantine off (MeasuredRun): with
        // it, freed memory stays held, 550 MB here, as much as the copies took.
        let run = try MeasuredRun.wrapinspect(["dump", "s.mtree"], in: directory.url)
        #expect(run.status == 0, "\(run.stdout)")
        let bound = TestSizes.pick(full: 160 << 20, reduced: 256 << 20)
        #expect(run.peakBytes < bound, "peak \(run.peakBytes >> 20) MiB")
    }
}
