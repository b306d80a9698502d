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
    /// none) every 200 ms after the first half second: the entries and
    /// bytes done, and the bytes a second so far. Once the progress has a
    /// total: `N of M entries, S of T, R/s, 12 s left`. Where the terminal
    /// is narrow, the name gives way first, then the parts ``texts`` drops.
    static func showing<Result>(_ verb: String, _ path: String, _ work: (ManifestProgress?) throws -> Result) throws -> Result {
        guard isatty(STDERR_FILENO) == 1 else { return try work(nil) }
        let progress = ManifestProgress()
        let name = Format.name(path.utf8)
        return try drawing({ seconds, columns in
            // The name gives way first, in its middle; then the counts, least telling first.
            let head = "\(verb) ", shortestName = 8
            let forms = texts(progress, seconds: seconds)
            let room = columns - TerminalWidth.columns(of: head) - 2
            let counts = forms.first { room - TerminalWidth.columns(of: $0) >= shortestName } ?? forms[forms.count - 1]
            let nameRoom = max(room - TerminalWidth.columns(of: counts), shortestName)
            return head + TerminalWidth.shortenedInTheMiddle(name, to: nameRoom) + ": " + counts
        }) { (_: Drawing) in
            try work(progress)
        }
    }

    /// What `progress` has come to after `seconds`, in forms from the
    /// fullest to the plainest: the time left goes first, then the entry
    /// counts, then the rate; the bytes done stay.
    static func texts(_ progress: ManifestProgress, seconds: Double) -> [String] {
        let (entries, bytes) = (Int64(progress.entries), progress.bytes)
        let rate = "\(Format.size(seconds > 0 ? Int64(Double(bytes) / seconds) : 0))/s"
        guard let total = progress.total else {
            // Entries once there are any: a copy of standard input has none.
            let counted = entries > 0 ? Format.count(entries, "entry", "entries") + ", " : ""
            let size = Format.size(bytes)
            return ["\(counted)\(size), \(rate)", "\(size), \(rate)", size]
        }
        // A total counted ahead may fall short of what the work meets (a file that grew).
        let (entryTotal, byteTotal) = (max(Int64(total.entries), entries), max(total.bytes, bytes))
        let counted = "\(entries) of \(Format.count(entryTotal, "entry", "entries"))"
        let sizes = "\(Format.size(bytes)) of \(Format.size(byteTotal))"
        var forms = ["\(counted), \(sizes), \(rate)", "\(sizes), \(rate)", sizes]
        // Time left at the rate so far: by bytes, or by entries where there are no bytes to go by.
        let left: Double? = byteTotal > 0
            ? (bytes > 0 ? Double(byteTotal - bytes) * seconds / Double(bytes) : nil)
            : (entries > 0 ? Double(entryTotal - entries) * seconds / Double(entries) : nil)
        if let left { forms.insert(forms[0] + ", \(duration(left)) left", at: 0) }
        return forms
    }

    /// `12 s`, `3 min 4 s`, `2 h 5 min`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole / 60 % 60) min"
    }

    /// Runs `work`, drawing `line(seconds since the start)` every 200 ms
    /// after the first half second when standard error is a terminal, and
    /// erasing it at the end. `work` prints other output through the
    /// ``Drawing`` it gets, so that no output lands on the line.
    static func showing<Result>(_ line: @escaping @Sendable (Double) -> String, _ work: (Drawing) throws -> Result) throws -> Result {
        try drawing({ seconds, _ in line(seconds) }, work)
    }

    /// Draws as `showing` does, a line made for the columns it may take
    /// (the terminal's less one, read at each drawing); a line still longer
    /// is cut short, for a line that wraps cannot be erased.
    private static func drawing<Result>(
        _ line: @escaping @Sendable (_ seconds: Double, _ columns: Int) -> String, _ work: (Drawing) throws -> Result
    ) throws -> Result {
        let drawing = Drawing(shown: isatty(STDERR_FILENO) == 1)
        guard drawing.shown else { return try work(drawing) }
        let timer = DispatchSource.makeTimerSource(queue: drawing.queue)
        timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(200))
        let start = DispatchTime.now()
        timer.setEventHandler {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            let columns = (TerminalWidth.columns(of: STDERR_FILENO) ?? Int.max) - 1
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + TerminalWidth.truncated(line(seconds, columns), to: columns)).utf8))
            drawing.drawn = true
        }
        timer.resume()
        defer {
            timer.cancel()
            // Wait out a line being written, then erase what was drawn.
            drawing.erasing {}
        }
        return try work(drawing)
    }

    /// The line being drawn, for output printed while it is.
    final class Drawing: @unchecked Sendable {
        let shown: Bool
        /// Where the line is drawn and erased.
        let queue = DispatchQueue(label: "wrapinspect.progress")
        /// Whether a line is on the terminal; touched only on `queue`.
        var drawn = false

        init(shown: Bool) {
            self.shown = shown
        }

        /// Runs `body` with the line erased; the next tick draws it again.
        func erasing<Result>(_ body: () throws -> Result) rethrows -> Result {
            guard shown else { return try body() }
            return try queue.sync {
                if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                drawn = false
                return try body()
            }
        }
    }
}
