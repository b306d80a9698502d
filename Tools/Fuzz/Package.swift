// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for FileWrapperKit, in a package of their own so that
// users of the library never build them. Each target is an executable that
// defines LLVMFuzzerTestOneInput and gets its main from libFuzzer; build and
// run them through Tools/run-fuzzers.sh (swift build --sanitize fuzzer
// --sanitize address, which also compiles them with -parse-as-library).
let package = Package(
    name: "Fuzz",
    dependencies: [
        .package(name: "FileWrapperKit", path: "../.."),
    ],
    targets: [
        // Archive bytes to a FileWrapper and to a manifest.
        .executableTarget(
            name: "fuzz-archive",
            dependencies: [.product(name: "FileWrapperArchive", package: "FileWrapperKit")]
        ),
        // Tar bytes read by our plain tar reader and by libarchive, compared
        // (internal API: the package is built with -enable-testing).
        .executableTarget(
            name: "fuzz-plain-tar",
            dependencies: [.product(name: "FileWrapperArchive", package: "FileWrapperKit")]
        ),
        // Manifest files (JSON, JSON Lines, mtree), decoded and round-tripped.
        .executableTarget(
            name: "fuzz-manifest",
            dependencies: [.product(name: "FileWrapperKit", package: "FileWrapperKit")]
        ),
        // Two JSON documents or property lists compared as diff --structured
        // compares them, within a budget of values.
        .executableTarget(
            name: "fuzz-structured",
            dependencies: [.product(name: "FileWrapperKit", package: "FileWrapperKit")]
        ),
        // UTType declarations (Info.plist-style, XML, binary or JSON).
        .executableTarget(
            name: "fuzz-declarations",
            dependencies: [.product(name: "FileWrapperDocument", package: "FileWrapperKit")]
        ),
        // A program of entries with colliding names and links, written as a
        // tar or zip, unpacked to disk; nothing outside the destination may
        // change and no symlink may lead out (-enable-testing: TreeRemover).
        .executableTarget(
            name: "fuzz-unpack",
            dependencies: [
                .product(name: "FileWrapperArchive", package: "FileWrapperKit"),
                .product(name: "FileWrapperKit", package: "FileWrapperKit"),
            ]
        ),
        // Serialized file wrappers (Apple's flat RTFD, the legacy tar) read,
        // and what reads serialized again to a fixed point.
        .executableTarget(
            name: "fuzz-flat-rtfd",
            dependencies: [.product(name: "FileWrapperKit", package: "FileWrapperKit")]
        ),
        // Entries made from the bytes, fed to ManifestBuilder in several orders.
        .executableTarget(
            name: "fuzz-tree-digest",
            dependencies: [.product(name: "FileWrapperKit", package: "FileWrapperKit")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
