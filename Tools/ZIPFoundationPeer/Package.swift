// swift-tools-version:6.0
import PackageDescription

// ZIPFoundation as a peer of `wrapinspect pack` in the comparative benchmark
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
    ],
    swiftLanguageModes: [.v6]
)
