import Benchmark
import BenchmarkFixtures
import FileWrapperKit

/// Reading a tree's structure without its contents: what opening a
/// document package and a manifest walk cost before any file is read.
let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration.microbenchmark()

    // Kinds, names and attributes of the whole tree; contents stay on disk.
    Benchmark.withFixture("FileWrapper(url:), lazy, 2,000 small files", configuration: configuration, prepare: SmallFilesTree.init) { _, tree in
        blackHole(try FileWrapper(url: tree.url))
    }

    // The manifest's descriptor-relative walk alone (lstat and xattrs of every entry).
    Benchmark.withFixture("Manifest(contentsOf:), no hashing, 2,000 small files", configuration: configuration, prepare: SmallFilesTree.init) { _, tree in
        blackHole(try Manifest(contentsOf: tree.url, hashingContents: false))
    }
}
