import Glibc
import Synchronization

/// The process's switch that stops it making names on disk, for the
/// handler that removes its temporaries before a signal ends it. Once
/// ``close()`` has returned, no call that makes a name (`openat(O_CREAT)`,
/// `mkdirat`, `symlinkat`, `linkat`) is under way in the ``Syscall``
/// funnel and none will be made: each fails with `ECANCELED`. A listing
/// of a folder taken then shows every temporary there will be, and a tree
/// being removed no longer grows under workers still writing into it.
/// Open, it costs two atomic additions a call that makes a name.
package enum CreationGate {
    /// The calls that passed the gate and have not returned, and ``closedBit``.
    private static let state = Atomic<Int>(0)
    private static let closedBit = 1 << 62

    /// Whether `call` makes a name, which a closed gate stops.
    static func stops(_ call: SystemCall) -> Bool {
        switch call {
        case .openatCreate, .mkdirat, .symlinkat, .linkat: true
        default: false
        }
    }

    /// `body`'s result, or -1 with `errno` `ECANCELED` once the gate is closed.
    static func pass<Result: FixedWidthInteger>(_ body: () -> Result) -> Result {
        let before = state.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        defer { state.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        guard before & closedBit == 0 else {
            Glibc.errno = ECANCELED
            return -1
        }
        return body()
    }

    /// Closes the gate for the rest of the process, then waits until the
    /// calls that passed it have returned: a second at most, so that a
    /// call stuck in the kernel (on a hung network file system) cannot
    /// hold the process.
    package static func close() {
        state.bitwiseOr(closedBit, ordering: .sequentiallyConsistent)
        for _ in 0..<1000 where state.load(ordering: .sequentiallyConsistent) & ~closedBit != 0 {
            usleep(1000)
        }
    }
}
