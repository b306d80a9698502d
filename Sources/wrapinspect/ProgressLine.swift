import Dispatch
import FileWrapperKit
import Foundation

/// A line on standard error that shows how far long work has come, only
/// when standard error is a terminal and the work has taken more than half
/// a second; it is erased when the work ends, and never drawn on a pipe or
/// a file.
enum ProgressLine {
    /// Runs `work` with a ``ManifestProgress`` it counts into, showing
    /// `reading PATH: N entries, S`; with none where no line can be shown,
    /// so that the readers' threads do not count for nothing (one shared
    /// counter costs them a cache line passed back and forth).
    static func showing<Result>(reading path: String, _ work: (ManifestProgress?) throws -> Result) throws -> Result {
        try showing("reading", path, work)
    }

    /// Runs `work` with a ``ManifestProgress`` it counts into, showing
    /// `VERB PATH: N entries, S, R/s` (without entries while there are
    /// none) every 200 ms after the first half
    /// second: the entries and bytes done, and the bytes a second so far.
    static func showing<Result>(_ verb: String, _ path: String, _ work: (ManifestProgress?) throws -> Result) throws -> Result {
        guard isatty(STDERR_FILENO) == 1 else { return try work(nil) }
        let progress = ManifestProgress()
        let queue = DispatchQueue(label: "wrapinspect.progress")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(200))
        let name = Format.name(path.utf8)
        let start = DispatchTime.now()
        // Whether a line was drawn; touched only on `queue`.
        nonisolated(unsafe) var drawn = false
        timer.setEventHandler {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            let rate = seconds > 0 ? Int64(Double(progress.bytes) / seconds) : 0
            // Entries once there are any: a copy of standard input has none.
            let entries = progress.entries > 0 ? Format.count(Int64(progress.entries), "entry", "entries") + ", " : ""
            let text = "\(verb) \(name): \(entries)\(Format.size(progress.bytes)), \(Format.size(rate))/s"
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
            drawn = true
        }
        timer.resume()
        defer {
            timer.cancel()
            // Wait out a line being written, then erase what was drawn.
            queue.sync {
                if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            }
        }
        return try work(progress)
    }
}
