import Glibc
import Testing
@testable import FileWrapperKit

/// The one worker pool (issue 21, item 4): every iteration of a parallel
/// loop runs once, on threads that are joined before it returns, and
/// threads started one by one run their work and are joined.
@Suite struct WorkerThreadsTests {
    /// Counts, one a slot, read after the threads are joined.
    final class Counts: Sendable {
        private let slots: Locked<[Int]>
        init(_ count: Int) { slots = Locked(Array(repeating: 0, count: count)) }
        func count(_ index: Int) { slots.withLock { $0[index] += 1 } }
        var values: [Int] { slots.withLock { $0 } }
    }

    @Test(arguments: [0, 1, 2, 5000])
    func performRunsEachIterationOnce(iterations: Int) {
        let counts = Counts(iterations)
        WorkerThreads.perform(iterations: iterations) { index in
            counts.count(index)
        }
        #expect(counts.values == Array(repeating: 1, count: iterations))
    }

    @Test func startedThreadsRunAndAreJoined() throws {
        let counts = Counts(4)
        let condition = WorkerCondition(conditions: 2)
        var started = 0
        var threads = WorkerThreads()
        for index in 0..<4 {
            try threads.start {
                counts.count(index)
                condition.withLock {
                    started += 1
                    condition.broadcast(1)
                }
            }
        }
        condition.withLock {
            while started < 4 { condition.wait(1) }
        }
        threads.joinAll()
        let joined = threads.isEmpty
        #expect(joined)
        #expect(counts.values == [1, 1, 1, 1])
    }
}
