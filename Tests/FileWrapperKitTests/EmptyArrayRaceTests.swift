import Foundation
import Testing
import TestSupport
@testable import FileWrapperKit

/// Arrays made in place with a capacity of 0 on several threads at once,
/// as the zip writer's workers make a sample past the end of a file: Swift
/// 6.3's `Array(unsafeUninitializedCapacity:initializingWith:)` writes
/// into the storage every empty array shares, and ThreadSanitizer reports
/// the race (it failed CI's `make test-tsan` once). These tests fail that
/// run if any of our arrays made in place goes that way again.
@Suite struct EmptyArrayRaceTests {
    @Test func anEmptyArrayMadeInPlaceCallsNoInitializer() {
        var called = false
        let empty = [UInt8](raceFreeUninitializedCapacity: 0) { _, _ in called = true }
        #expect(empty.isEmpty)
        #expect(!called)
        let filled = [UInt8](raceFreeUninitializedCapacity: 3) { buffer, count in
            for index in 0..<3 { buffer[index] = UInt8(index + 7) }
            count = 3
        }
        #expect(filled == [7, 8, 9])
    }

    @Test func emptyArraysMadeInPlaceOnSeveralThreadsAtOnce() {
        let nonEmpty = Locked(0)
        WorkerThreads.perform(iterations: 4) { _ in
            for _ in 0..<2_000 {
                let bytes = [UInt8](raceFreeUninitializedCapacity: 0) { _, count in count = 0 }
                if !bytes.isEmpty { nonEmpty.withLock { $0 += 1 } }
            }
        }
        #expect(nonEmpty.withLock { $0 } == 0)
    }

    /// The call that raced: samples of a file on disk, some past its end.
    @Test func samplesPastTheEndOfAFileOnSeveralThreadsAtOnce() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("file.bin")
        let bytes = [UInt8](count: 100) { UInt8(truncatingIfNeeded: $0 &* 13) }
        try Data(bytes).write(to: url)
        let file = try FileWrapper(url: url)
        let wrong = Locked<[[[UInt8]]?]>([])
        WorkerThreads.perform(iterations: 4) { _ in
            for _ in 0..<200 {
                let samples = try? file.contentsSamples(at: [0, 96, 100, 4_096], length: 8)
                if samples != [Array(bytes[0..<8]), Array(bytes[96...]), [], []] { wrong.withLock { $0.append(samples) } }
            }
        }
        #expect(wrong.withLock { $0 }.isEmpty)
    }
}
