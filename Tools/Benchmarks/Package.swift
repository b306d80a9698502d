// swift-tools-version:6.0
import PackageDescription

// Benchmarks of FileWrapperKit against peers, in a package of their own so
// that users of the library never build them. Run them through
// Tools/run-benchmark.sh; the method is in docs/performance.md.
let package = Package(
    name: "Benchmarks",
    dependencies: [
        .package(name: "FileWrapperKit", path: "../.."),
    ],
    targets: [
        // What archive-bench and bundle-bench share: options, child
        // processes, workloads, the report.
        .target(name: "BenchSupport"),
        // FileWrapper in its own process: opening and writing against cp -a,
        // incremental against full saves, the memory of opening.
        .executableTarget(
            name: "bundle-bench",
            dependencies: ["BenchSupport", .product(name: "FileWrapperKit", package: "FileWrapperKit")]
        ),
        // The comparative benchmark: the release wrapinspect against GNU tar,
        // bsdtar, Info-ZIP, ZIPFoundation, cp -a and sha256sum, each
        // operation a child process; it runs bundle-bench and merges its report.
        .executableTarget(
            name: "archive-bench",
            dependencies: ["BenchSupport", "rusage-exec", "bundle-bench"]
        ),
        // Runs one command and reports its time and its own peak memory
        // (see main.c for why this is C); archive-bench measures every
        // tool through it.
        .executableTarget(name: "rusage-exec"),
    ],
    swiftLanguageModes: [.v6]
)
