import Glibc
import Synchronization

/// The one way this package runs work on several threads: `pthread`s that
/// its owner starts one by one and joins, so that none outlives it
/// (Dispatch's threads cannot be joined), and ``perform(iterations:_:)``
/// for a loop whose iterations run on every core. Every parallel job
/// (hashing a tree, sorting and digesting a manifest, compressing, making
/// an unpack's files, reading ahead a tree to pack) gets its threads here
/// and waits on a ``WorkerCondition``.
package struct WorkerThreads: ~Copyable {
    /// `pthread_create` failed with `status`.
    package struct Failure: Error, CustomStringConvertible {
        package let status: CInt
        package var description: String { String(cString: strerror(status)) }
    }

    /// A closure on its way to its thread.
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var threads: [pthread_t] = []

    package init() {}

    /// Whether no thread is running (none started, or all joined).
    package var isEmpty: Bool { threads.isEmpty }

    /// Starts a thread that runs `body`.
    package mutating func start(_ body: @escaping () -> Void) throws(Failure) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw Failure(status: status)
        }
        threads.append(thread)
    }

    /// Waits for every thread started to end (`pthread_join`).
    package mutating func joinAll() {
        for thread in threads { pthread_join(thread, nil) }
        threads.removeAll()
    }

    /// A counter that the threads of ``perform(iterations:_:)`` take iterations from.
    private final class Iterations: @unchecked Sendable {
        let next = Atomic<Int>(0)
    }

    /// Runs `body` for each of `0..<iterations` on up to as many threads as
    /// the process may use (this one among them) and returns when all have
    /// run, as `DispatchQueue.concurrentPerform` does. Each thread takes
    /// the next iteration not yet taken; if a thread cannot be started,
    /// the others run its share.
    package static func perform(iterations: Int, _ body: (Int) -> Void) {
        guard iterations > 1 else {
            if iterations == 1 { body(0) }
            return
        }
        let counter = Iterations()
        withoutActuallyEscaping(body) { body in
            let run = {
                while true {
                    let index = counter.next.add(1, ordering: .relaxed).oldValue
                    guard index < iterations else { return }
                    body(index)
                }
            }
            var threads = WorkerThreads()
            for _ in 1..<min(iterations, Syscall.availableProcessors()) {
                do throws(Failure) {
                    try threads.start(run)
                } catch {
                    break
                }
            }
            run()
            threads.joinAll()
        }
    }
}
