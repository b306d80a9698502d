import Dispatch
import FileWrapperKit
import Foundation
import Synchronization
import Testing
import TestSupport

/// One FileWrapper tree read from 16 threads at once while nobody changes
/// it: each thread sees every file's bytes, the same manifest and the tree
/// still matching the disk. The contents are read lazily, so the threads
/// race to load the same files first; without the lock around a wrapper's
/// contents that race is a data race (`swift test --sanitize=thread`
/// reports it) and may tear the cached bytes.
@Suite struct ConcurrentReadingTests {
    @Test func sixteenThreadsReadOneLazilyReadTree() throws {
        let directory = try TemporaryDirectory()
        let root = directory.appending("Doc.package")
        var expected: [String: Data] = [:]
        for index in 0..<120 {
            // Small files are read, files from 64 KiB on are mapped.
            let path = "Pages/\(index % 6)/page-\(index).txt"
            expected[path] = Data(String(repeating: "page \(index) ", count: index % 3 == 0 ? 8_000 : 40).utf8)
            try Disk.write(expected[path]!, to: root.appendingPathComponent(path))
        }
        let digest = try Manifest(contentsOf: root).treeDigest
        // A wrapper is not Sendable (it is mutable); sharing it for reading
        // only is the caller's promise.
        nonisolated(unsafe) let wrapper = try FileWrapper(url: root)
        let files = expected

        let failures = Locked<[String]>([])
        let arrived = Atomic<Int>(0)
        let finished = DispatchSemaphore(value: 0)
        for thread in 0..<16 {
            // Threads of their own (a dispatch queue would run only as many
            // as there are cores), which start together to load the same
            // files at the same moment.
            Thread {
                arrived.add(1, ordering: .relaxed)
                while arrived.load(ordering: .relaxed) < 16 { sched_yield() }
                var problems: [String] = []
                for (path, bytes) in files.sorted(by: { $0.key < $1.key }) {
                    var file = wrapper
                    for name in path.split(separator: "/") { file = file.fileWrappers![String(name)]! }
                    if file.regularFileContents != bytes { problems.append("thread \(thread) read other bytes in \(path)") }
                }
                if (try? Manifest(wrapper, name: "Doc.package").treeDigest) != digest { problems.append("thread \(thread): another manifest") }
                if !wrapper.matchesContents(of: root) { problems.append("thread \(thread): the tree no longer matches the disk") }
                failures.withLock { $0 += problems }
                finished.signal()
            }.start()
        }
        for _ in 0..<16 { finished.wait() }
        #expect(failures.withLock { $0 } == [])
    }
}
