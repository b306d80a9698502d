// swift-tools-version:6.0
import PackageDescription

// ZIPFoundation as a peer of `wrapinspect pack` and of zip documents in the comparative benchmark
// (Tools/run-benchmark.sh): a package of its own, so that neither the
// library nor Tools/Benchmarks ever depends on ZIPFoundation.
let package = Package(
    name: "ZIPFoundationPeer",
    dependencies: [
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
    ],
    targets: [
        .executableTarget(
            name: "zipfoundation-zip",
            dependencies: [.product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        // The peers of opening a zip document and of saving one changed
        // member (archive-bench's zip-document rows, workload w4).
        .executableTarget(
            name: "zipfoundation-open",
            dependencies: [.product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .executableTarget(
            name: "zipfoundation-replace",
            dependencies: [.product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
