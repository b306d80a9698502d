import Glibc
import Synchronization

/// A test's hook in the ``Syscall`` funnel: the N-th call of one kind
/// fails with a chosen `errno` (`ENOSPC`, `EIO`, `EINTR`…) or ends the
/// process there (SIGKILL, a crash point), without root, a full disk or a
/// tmpfs mount. Two ways to arm it: for the whole process, by a test's
/// child process (`fwk-test-child --fault CALL:N:WHAT`), never in a process
/// running tests side by side; or for the calls one piece of work makes on
/// its own thread (and in the tasks it starts), in the test process itself
/// (``failing(_:at:with:_:)``), as swift-system's mocking driver scopes
/// its mocks, so that tests running beside it meet no fault. Disarmed, it
/// costs one relaxed atomic load a call.
package enum FaultInjection {
    /// What happens at the chosen call.
    package enum Action: Sendable, Equatable {
        /// The call fails with this `errno` instead of being made.
        case fail(CInt)
        /// The process is killed (SIGKILL) instead of the call.
        case kill
    }

    /// The `occurrence`-th call of `call` (counted from 1) does `action`,
    /// and with `repeating` every later one too: a file system that lacks
    /// something (`fcntl` locks: `ENOLCK`) fails every call.
    package struct Plan: Sendable, Equatable {
        package var call: SystemCall
        package var occurrence: Int
        package var action: Action
        package var repeating: Bool

        package init(call: SystemCall, occurrence: Int, action: Action, repeating: Bool = false) {
            self.call = call
            self.occurrence = occurrence
            self.action = action
            self.repeating = repeating
        }

        /// `CALL:N:WHAT`, or `CALL:N+:WHAT` for the N-th call and every one
        /// after; WHAT an errno name (`ENOSPC`, `EIO`, `EINTR`, `EACCES`,
        /// `EROFS`, `ENOLCK`) or `kill`; nil when it does not parse.
        package init?(_ text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            let repeating = parts.count == 3 && parts[1].hasSuffix("+")
            guard parts.count == 3, let call = SystemCall(rawValue: String(parts[0])),
                  let occurrence = Int(repeating ? parts[1].dropLast() : parts[1]), occurrence >= 1
            else { return nil }
            let errnos: [Substring: CInt] = ["ENOSPC": ENOSPC, "EIO": EIO, "EINTR": EINTR, "EACCES": EACCES, "EROFS": EROFS, "ENOLCK": ENOLCK]
            if parts[2] == "kill" {
                self.init(call: call, occurrence: occurrence, action: .kill, repeating: repeating)
            } else if let code = errnos[parts[2]] {
                self.init(call: call, occurrence: occurrence, action: .fail(code), repeating: repeating)
            } else {
                return nil
            }
        }
    }

    /// How many plans are armed: the process's, and the scoped ones.
    private static let armed = Atomic<Int>(0)
    private static let state = Mutex<(plan: Plan?, seen: Int)>((nil, 0))

    /// A plan for one piece of work, and the calls of its kind counted so far.
    private final class ScopedPlan: Sendable {
        let plan: Plan
        let seen = Atomic<Int>(0)

        init(_ plan: Plan) {
            self.plan = plan
        }
    }

    /// The scoped plan of the work running here.
    @TaskLocal private static var scoped: ScopedPlan?

    /// Whether a plan is armed: the funnel's fast check.
    static var isArmed: Bool { armed.load(ordering: .relaxed) > 0 }

    /// Arms `plan` for the rest of the process.
    package static func arm(_ plan: Plan) {
        state.withLock { $0 = (plan, 0) }
        armed.add(1, ordering: .releasing)
    }

    /// Runs `body` with the `occurrence`-th call of `call` that it makes on
    /// this thread, or in a task it starts, failing with `errno` instead of
    /// being made (counted from 1). Calls on other threads (the workers a
    /// writer hands files to) are made as usual.
    package static func failing<Result>(
        _ call: SystemCall, at occurrence: Int, with errno: CInt, _ body: () throws -> Result
    ) rethrows -> Result {
        armed.add(1, ordering: .releasing)
        defer { armed.subtract(1, ordering: .releasing) }
        return try $scoped.withValue(ScopedPlan(Plan(call: call, occurrence: occurrence, action: .fail(errno)))) { try body() }
    }

    /// Counts a call of `call`; at the planned one, kills the process or
    /// returns the `errno` it must fail with. A scoped plan, where there is
    /// one here, is the only one that counts.
    static func take(_ call: SystemCall) -> CInt? {
        if let scoped {
            guard scoped.plan.call == call, scoped.seen.add(1, ordering: .relaxed).newValue == scoped.plan.occurrence,
                  case .fail(let code) = scoped.plan.action
            else { return nil }
            return code
        }
        let action: Action? = state.withLock { state in
            guard let plan = state.plan, plan.call == call else { return nil }
            state.seen += 1
            return state.seen == plan.occurrence || plan.repeating && state.seen > plan.occurrence ? plan.action : nil
        }
        switch action {
        case .fail(let code)?: return code
        case .kill?: Glibc.kill(getpid(), SIGKILL); return nil
        case nil: return nil
        }
    }
}
