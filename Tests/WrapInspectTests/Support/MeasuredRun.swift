import Foundation
import TestSupport

/// A run of the built `wrapinspect` with what it cost: its peak resident
/// memory (`ru_maxrss` from `wait4`, which Python reports for a child)
/// and its wall time, for tests that bound memory and time.
struct MeasuredRun {
    var status: Int32
    var peakBytes: Int
    var seconds: Double
    var stdout: String

    /// Runs `wrapinspect arguments...` in `directory`, killed after
    /// `timeout` seconds (status -9 then). Under AddressSanitizer, freed
    /// memory is reused at once (no quarantine), so that the peak measures
    /// what is held, not what was freed.
    static func wrapinspect(_ arguments: [String], in directory: URL, timeout: Double = 120) throws -> MeasuredRun {
        guard let executable = WrapInspectProcess.executableURL else { throw WrapInspectProcess.NotBuilt() }
        let script = """
            import json, os, subprocess, sys, threading, time
            start = time.monotonic()
            child = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=sys.argv[1])
            timer = threading.Timer(float(sys.argv[2]), child.kill)
            timer.start()
            output = child.stdout.read()
            _, status, usage = os.wait4(child.pid, 0)
            timer.cancel()
            print(json.dumps({"status": os.waitstatus_to_exitcode(status), "peak": usage.ru_maxrss,
                              "seconds": time.monotonic() - start, "stdout": output.decode(errors="replace")}))
            """
        let options = (ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "quarantine_size_mb=0"
        let result = try ChildProcess.run("/usr/bin/env", ["ASAN_OPTIONS=\(options)", "python3", "-c", script, directory.path, String(timeout),
                                                           executable.path] + arguments)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        guard let object, let status = object["status"] as? Int, let peak = object["peak"] as? Int, let seconds = object["seconds"] as? Double,
              let stdout = object["stdout"] as? String
        else { throw Unreadable(description: "\(result.stdout)\(result.stderr)") }
        return MeasuredRun(status: Int32(status), peakBytes: peak * 1024, seconds: seconds, stdout: stdout)
    }

    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }
}
