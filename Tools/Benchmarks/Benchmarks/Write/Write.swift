import Benchmark
import BenchmarkFixtures
import FileWrapperArchive
import FileWrapperKit
import Foundation

/// Writing a tree: as an archive to a sink that discards the bytes (the
/// archive's cost without the disk's), and as files on disk.
let benchmarks: @Sendable () -> Void = {
    var configuration = Benchmark.Configuration.microbenchmark(measuresBytes: true)
    configuration.metrics.append(.archiveKilobytes)
    configuration.units[.archiveKilobytes] = .count
    let formats: [(name: String, format: ArchiveFormat)] = [("tar", .tar), ("tar.zst", .tarZstd), ("zip", .zip)]

    // The source is read lazily once, in the setup: what is measured is the
    // archive writer streaming the files' contents from disk into libarchive.
    for (name, format) in formats {
        let options = ArchiveWriteOptions(format: format)
        let write: (Benchmark, ArchiveSource) throws -> Void = { benchmark, source in
            var archiveBytes = 0
            try benchmark.measuringBytes(source.byteCount) {
                try ArchiveWriter.write(source.wrapper, options: options) { archiveBytes += $0.count }
            }
            benchmark.measurement(.archiveKilobytes, archiveBytes / 1000)
        }
        Benchmark.withFixture("ArchiveWriter \(name), 2,000 small files", configuration: configuration, prepare: ArchiveSource.smallFiles, run: write)
        Benchmark.withFixture("ArchiveWriter \(name), one 64 MiB file", configuration: configuration, prepare: ArchiveSource.largeFile, run: write)
    }

    // Saving a document held in memory: 2,000 files created under a new
    // name each iteration (removed with the scratch directory afterwards).
    Benchmark.withFixture(
        "FileWrapper.write(to:), 2,000 small files from memory", configuration: .microbenchmark(maxIterations: 10, measuresBytes: true),
        prepare: SavedTree.init
    ) { benchmark, tree in
        let destination = tree.nextDestination()
        try benchmark.measuringBytes(tree.byteCount) {
            try tree.wrapper.write(to: destination, originalContentsURL: nil)
        }
    }
}

extension BenchmarkMetric {
    /// The archive's size in kB (10^3 bytes): how well the format compressed,
    /// and proof that every byte went through the writer.
    static let archiveKilobytes = BenchmarkMetric.custom("archive kB", useScalingFactor: false)
}

/// A wrapper read lazily from a fixture, and its contents' size.
struct ArchiveSource {
    let wrapper: FileWrapper
    let byteCount: Int

    static func smallFiles(in directory: URL) throws -> ArchiveSource {
        let tree = try SmallFilesTree(in: directory)
        return ArchiveSource(wrapper: try FileWrapper(url: tree.url, options: .withoutMapping), byteCount: tree.byteCount)
    }

    static func largeFile(in directory: URL) throws -> ArchiveSource {
        let file = try LargeFile(in: directory)
        return ArchiveSource(wrapper: try FileWrapper(url: file.url, options: .withoutMapping), byteCount: LargeFile.byteCount)
    }
}

/// The small-files tree with every file's contents in memory, and fresh
/// destinations beside it to write it to.
final class SavedTree {
    let wrapper: FileWrapper
    let byteCount: Int
    private let directory: URL
    private var written = 0

    init(in directory: URL) throws {
        let tree = try SmallFilesTree(in: directory)
        wrapper = try FileWrapper(url: tree.url, options: [.immediate, .withoutMapping])
        byteCount = tree.byteCount
        self.directory = directory
    }

    func nextDestination() -> URL {
        written += 1
        return directory.appending(path: "saved-\(written)")
    }
}
