import Foundation

/// 2,000 files of 200 B to 8 KiB (60 % text, 40 % random bytes) in 50
/// folders: the many-small-files workload (W1) at a tenth of its
/// size, without symlinks.
public struct SmallFilesTree: Sendable {
    public static let folderCount = 50
    public static let filesPerFolder = 40

    /// The tree's root directory.
    public let url: URL
    /// The files' bytes, all together.
    public let byteCount: Int

    /// Generates the tree as `tree` in `directory`.
    public init(in directory: URL) throws {
        url = directory.appending(path: "tree")
        var generator = SeededGenerator(seed: 1)
        var total = 0
        for folder in 0..<Self.folderCount {
            let folderURL = url.appending(path: String(format: "folder-%02d", folder))
            try FileManager.default.createDirectory(at: folderURL, withIntermediateDirectories: true)
            for file in 0..<Self.filesPerFolder {
                let size = Int.random(in: 200...8192, using: &generator)
                let isText = Int.random(in: 0..<10, using: &generator) < 6
                let bytes = isText ? FixtureBytes.text(count: size, using: &generator) : FixtureBytes.random(count: size, using: &generator)
                try Data(bytes).write(to: folderURL.appending(path: String(format: "file-%02d.", file) + (isText ? "txt" : "bin")))
                total += size
            }
        }
        byteCount = total
    }
}

/// One 64 MiB file, its first half random bytes and its second half text,
/// like the files of the few-large-files workload (W2).
public struct LargeFile: Sendable {
    public static let byteCount = 64 << 20

    public let url: URL

    /// Generates the file as `large.bin` in `directory`.
    public init(in directory: URL) throws {
        url = directory.appending(path: "large.bin")
        var generator = SeededGenerator(seed: 2)
        let half = Self.byteCount / 2
        var bytes = FixtureBytes.random(count: half, using: &generator)
        bytes += FixtureBytes.text(count: half, using: &generator)
        try Data(bytes).write(to: url)
    }
}

/// A directory of its own for one benchmark's fixture, below
/// `$MICROBENCHMARK_SCRATCH` (default `/work/micro-scratch`; not `/tmp`,
/// where test suites create and delete thousands of files).
final class ScratchDirectory {
    private var url: URL?

    /// Makes the directory; the benchmark runs in a process of its own, so
    /// the process ID names it.
    func make() throws -> URL {
        let base = ProcessInfo.processInfo.environment["MICROBENCHMARK_SCRATCH"] ?? "/work/micro-scratch"
        let directory = URL(filePath: base).appending(path: "fixture-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory
        return directory
    }

    func remove() throws {
        guard let url else { return }
        try FileManager.default.removeItem(at: url)
        self.url = nil
    }
}
