// swift-tools-version:6.0
import PackageDescription

// Benchmarks of FileWrapperKit against peers, in a package of their own so
// that users of the library never build them. Run them through
// Tools/run-bundle-benchmark.sh and Tools/run-archive-benchmark.sh.
let package = Package(
    name: "Benchmarks",
    dependencies: [
        .package(name: "FileWrapperKit", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "bundle-bench",
            dependencies: [.product(name: "FileWrapperKit", package: "FileWrapperKit")]
        ),
        .executableTarget(
            name: "archive-bench",
            dependencies: [
                .product(name: "FileWrapperArchive", package: "FileWrapperKit"),
                "rusage-exec",
            ]
        ),
        // Runs one command and reports its time and its own peak memory
        // (see main.c for why this is C); archive-bench measures every
        // tool through it.
        .executableTarget(name: "rusage-exec"),
    ],
    swiftLanguageModes: [.v6]
)
