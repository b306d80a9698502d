import Dispatch
import FileWrapperArchive
import Synchronization

/// What `verify`'s progress line says: the input being read, then the form
/// whose round trip runs, and the time left at the pace of the forms done.
final class VerifyStatus: Sendable {
    private let name: String
    private let forms: [RoundTrip.Form]
    private let start = DispatchTime.now()
    /// The forms begun, and when the first and the last began (seconds from `start`).
    private let state = Mutex<(begun: Int, firstStart: Double, lastStart: Double)>((0, 0, 0))

    init(path: String, forms: [RoundTrip.Form]) {
        name = Format.name(path.utf8)
        self.forms = forms
    }

    private var seconds: Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// Told by the round trips as each form begins.
    func begin(_ form: RoundTrip.Form) {
        let now = seconds
        state.withLock { state in
            if state.begun == 0 { state.firstStart = now }
            state.lastStart = now
            state.begun += 1
        }
    }

    /// `verifying X: reading, 1 s so far`, then
    /// `verifying X: zip, form 2 of 4, 6 s so far, 9 s left`.
    func line() -> String {
        let now = seconds
        let (begun, firstStart, lastStart) = state.withLock { ($0.begun, $0.firstStart, $0.lastStart) }
        guard begun > 0 else { return "verifying \(name): reading, \(ProgressLine.duration(now)) so far" }
        var text = "verifying \(name): \(forms[begun - 1]), form \(begun) of \(forms.count), \(ProgressLine.duration(now)) so far"
        let done = begun - 1
        if done > 0 {
            // The forms not done at the pace of those done, less the time the current one has run.
            let pace = (lastStart - firstStart) / Double(done)
            text += ", \(ProgressLine.duration(max(0, pace * Double(forms.count - done) - (now - lastStart)))) left"
        }
        return text
    }
}
