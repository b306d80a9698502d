import Benchmark
import BenchmarkFixtures
import FileWrapperKit
import Foundation

/// A manifest the size of the many-small-files workload (W1), in
/// memory: computing its tree and metadata digests, and writing and reading
/// it as a file.
let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration.microbenchmark()

    // Every source of a manifest ends here: paths normalized and sorted,
    // then a tree and a metadata digest for every entry, bottom up. The
    // entries come sorted, so the sort is one pass.
    Benchmark("ManifestBuilder, 20,500 entries", configuration: configuration) { _, entries in
        blackHole(try SyntheticTree.build(entries))
    } setup: {
        SyntheticTree.entries()
    }

    for (name, format) in [("JSON", ManifestFileFormat.json), ("mtree", .mtree)] {
        Benchmark("encode \(name), 20,500 entries", configuration: configuration) { _, manifest in
            blackHole(manifest.encoded(as: format))
        } setup: {
            try SyntheticTree.manifest()
        }

        // Decoding builds the manifest again, digests included (see above).
        Benchmark("decode \(name), 20,500 entries", configuration: configuration) { _, data in
            blackHole(try Manifest(decoding: data, name: "synthetic"))
        } setup: {
            try SyntheticTree.manifest().encoded(as: format)
        }
    }
}

/// 20,000 files in 500 folders with made-up sizes, times and content
/// digests, as a snapshot of W1 would list them.
enum SyntheticTree {
    static let folderCount = 500
    static let filesPerFolder = 40

    /// The folders and files, in manifest order.
    static func entries() -> [ManifestEntry] {
        var generator = SeededGenerator(seed: 4)
        let owner = FileOwner(userID: 1000, groupID: 1000)
        var entries: [ManifestEntry] = []
        for folder in 0..<folderCount {
            let folderPath = String(format: "folder-%03d", folder)
            entries.append(ManifestEntry(
                path: Array(folderPath.utf8), kind: .directory, permissions: 0o755, modified: timestamp(using: &generator), owner: owner))
            for file in 0..<filesPerFolder {
                entries.append(ManifestEntry(
                    path: Array((folderPath + String(format: "/file-%02d.txt", file)).utf8), kind: .file,
                    size: Int64.random(in: 200...8192, using: &generator), permissions: 0o644,
                    modified: timestamp(using: &generator), owner: owner,
                    contentDigest: SHA256Digest(bytes: FixtureBytes.random(count: 32, using: &generator))))
            }
        }
        return entries
    }

    /// The manifest of `entries`, made as every source makes one.
    static func build(_ entries: [ManifestEntry]) throws -> Manifest {
        var builder = ManifestBuilder(source: Manifest.Source(kind: .bundle, name: "synthetic"))
        for entry in entries {
            try builder.add(entry)
        }
        return try builder.finish()
    }

    static func manifest() throws -> Manifest {
        try build(entries())
    }

    private static func timestamp(using generator: inout SeededGenerator) -> FileTimestamp {
        FileTimestamp(seconds: 1_700_000_000 + Int64.random(in: 0..<10_000_000, using: &generator), nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &generator))
    }
}
