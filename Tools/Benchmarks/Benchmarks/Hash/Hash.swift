import Benchmark
import BenchmarkFixtures
import FileWrapperKit
import Foundation

/// SHA-256 of file contents: the hasher alone on bytes in memory, then
/// snapshots (manifests with a digest of every file), which read the files
/// and hash them on every core.
let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration.microbenchmark(measuresBytes: true)

    // In 1 MiB blocks, as the manifest's hashing reads files.
    Benchmark("SHA256Hasher, 64 MiB in memory", configuration: configuration) { (benchmark, bytes: [UInt8]) in
        benchmark.measuringBytes(bytes.count) {
            var hasher = SHA256Hasher()
            let block = 1 << 20
            bytes.withUnsafeBytes { buffer in
                for start in stride(from: 0, to: buffer.count, by: block) {
                    hasher.update(UnsafeRawBufferPointer(rebasing: buffer[start..<min(start + block, buffer.count)]))
                }
            }
            blackHole(hasher.finalize())
        }
    } setup: {
        var generator = SeededGenerator(seed: 3)
        return FixtureBytes.random(count: LargeFile.byteCount, using: &generator)
    }

    // One file, so one worker: the read and hash loop of a single core.
    Benchmark.withFixture("snapshot, one 64 MiB file", configuration: configuration, prepare: LargeFile.init) { benchmark, file in
        try benchmark.measuringBytes(LargeFile.byteCount) {
            blackHole(try Manifest(contentsOf: file.url))
        }
    }

    // The walk (see Walk) plus opening, checking and hashing every file.
    Benchmark.withFixture("snapshot, 2,000 small files", configuration: configuration, prepare: SmallFilesTree.init) { benchmark, tree in
        try benchmark.measuringBytes(tree.byteCount) {
            blackHole(try Manifest(contentsOf: tree.url))
        }
    }
}
