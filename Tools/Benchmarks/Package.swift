// swift-tools-version:6.0
import PackageDescription

// Benchmarks of FileWrapperKit against peers, in a package of their own so
// that users of the library never build them. Run them through
// Tools/run-bundle-benchmark.sh.
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
    ],
    swiftLanguageModes: [.v6]
)
