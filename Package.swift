// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "FileWrapperKit",
    products: [
        .library(name: "FileWrapperKit", targets: ["FileWrapperKit"]),
        .library(name: "FileWrapperArchive", targets: ["FileWrapperArchive"]),
        .library(name: "FileWrapperDocument", targets: ["FileWrapperDocument"]),
        .executable(name: "wrapinspect", targets: ["wrapinspect"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        // `swift package generate-documentation`: the DocC catalogs beside each library's sources.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // libarchive from the system (Debian: libarchive-dev 3.6.2), its
        // headers at build time, the library loaded on first use (CArchive.c).
        .target(name: "CArchive"),
        // zstd and zlib from the system (Debian: libzstd-dev, zlib1g-dev),
        // called directly where we compress on several cores.
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // ISA-L from the system (Debian: libisal-dev), whose inflate is about
        // three times zlib's: linked through pkg-config only when it is
        // there (the module map names no library), and CInflate falls back
        // to zlib when its header is missing.
        .systemLibrary(name: "CIsal", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        // The one raw inflater, ISA-L's or zlib's, chosen at build time.
        .target(name: "CInflate", dependencies: ["CIsal", "CZlib"]),
        // liblzma from the system (Debian: liblzma-dev), which decodes xz,
        // lzma and lzip streams within a memory limit, and reads the filter
        // headers of xz blocks and the properties of LZMA streams that
        // libarchive decodes itself without a limit.
        .systemLibrary(name: "CLZMA", pkgConfig: "liblzma", providers: [.apt(["liblzma-dev"])]),
        // Linux calls that Swift's Glibc module does not export
        // (renameat2, copy_file_range, syncfs, the *xattr family, memmem).
        .target(name: "CFileSystem"),
        // SHA-256 with its state on the stack, on the SHA instructions where
        // the processor has them: manifests hash tens of thousands of short inputs.
        .target(name: "CSHA256"),
        // CRC-32 by carry-less multiplication where the processor has it:
        // every zip member read is checked with it.
        .target(name: "CCRC32", dependencies: ["CZlib"]),
        .target(
            name: "FileWrapperKit",
            dependencies: [
                "CFileSystem",
                "CSHA256",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "FileWrapperArchive",
            dependencies: ["CArchive", "CCRC32", "CInflate", "CZstd", "CZlib", "CLZMA", "CFileSystem", "FileWrapperKit"]
        ),
        .target(
            name: "FileWrapperDocument",
            dependencies: [
                "FileWrapperArchive",
                // ObservableObject and @Published, which ReferenceFileDocument needs (Combine is Apple's only).
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // The inspector's commands, a library of their own so that tests
        // parse them in process; `wrapinspect` only calls their entry point.
        .target(
            name: "WrapInspectCommands",
            dependencies: [
                // Not FileWrapperDocument: the inspector needs no document
                // layer, and leaving it (and OpenCombine) out makes a
                // smaller program that starts sooner.
                "FileWrapperArchive",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "wrapinspect", dependencies: ["WrapInspectCommands"]),
        // The example of the README: a notes app without a user interface.
        .executableTarget(
            name: "notes-example",
            dependencies: [
                "FileWrapperDocument",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Notes"
        ),
        // Two document apps without a user interface, their documents
        // written as Apple's samples write them for SwiftUI: a reference
        // document with undo, and a package that keeps unchanged files.
        // Their top-level code runs on the main actor, as an app's does.
        .executableTarget(name: "checklist-example", dependencies: ["FileWrapperDocument"], path: "Examples/Checklist"),
        .executableTarget(name: "album-example", dependencies: ["FileWrapperDocument"], path: "Examples/Album"),
        // The README's Swift examples, each a program of its own: the
        // ReadmeExamples plugin makes the block marked `<!-- example NAME -->`
        // the main.swift of readme-example-NAME (the folder holds only a
        // placeholder), so that the build compiles every example as pasted
        // and ReadmeExampleTests runs them.
        .executableTarget(name: "readme-example-extract", path: "Tests/ReadmeExamples/Extract"),
        .plugin(
            name: "ReadmeExamples",
            capability: .buildTool(),
            dependencies: ["readme-example-extract"],
            path: "Tests/ReadmeExamples/Plugin"
        ),
        .executableTarget(
            name: "readme-example-library", dependencies: ["FileWrapperKit"],
            path: "Tests/ReadmeExamples/Library", plugins: [.plugin(name: "ReadmeExamples")]
        ),
        .executableTarget(
            name: "readme-example-archives", dependencies: ["FileWrapperKit", "FileWrapperArchive"],
            path: "Tests/ReadmeExamples/Archives", plugins: [.plugin(name: "ReadmeExamples")]
        ),
        .executableTarget(
            name: "readme-example-manifests", dependencies: ["FileWrapperKit", "FileWrapperArchive"],
            path: "Tests/ReadmeExamples/Manifests", plugins: [.plugin(name: "ReadmeExamples")]
        ),
        .executableTarget(
            name: "readme-example-documents", dependencies: ["FileWrapperDocument"],
            path: "Tests/ReadmeExamples/Documents", plugins: [.plugin(name: "ReadmeExamples")]
        ),
        // A child process for the tests that kill an operation midway, run
        // it under another user or time zone, or bound its memory.
        .executableTarget(
            name: "fwk-test-child",
            dependencies: ["FileWrapperDocument"],
            path: "Tests/TestChild"
        ),
        // Runs a program with openat2 failing with ENOSYS (a seccomp filter),
        // for the tests of what the library does on kernels without it.
        .executableTarget(name: "fwk-no-openat2", path: "Tests/NoOpenat2Exec"),
        // Temporary directories and trees on disk, read independently of the library.
        .target(
            name: "TestSupport",
            dependencies: ["FileWrapperKit", "CFileSystem"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "FileWrapperKitTests",
            dependencies: ["FileWrapperKit", "CFileSystem", "CSHA256", "TestSupport", "fwk-test-child"]
        ),
        .testTarget(
            name: "FileWrapperArchiveTests",
            dependencies: ["FileWrapperArchive", "TestSupport", "fwk-test-child", "wrapinspect", "fwk-no-openat2"]
        ),
        .testTarget(
            name: "WrapInspectTests",
            dependencies: ["wrapinspect", "TestSupport", "fwk-test-child"]
        ),
        // The commands' parsing, validation and help, in process (the fast tier).
        .testTarget(
            name: "WrapInspectCommandsTests",
            dependencies: ["WrapInspectCommands", "TestSupport"]
        ),
        .testTarget(
            name: "ReadmeExampleTests",
            dependencies: [
                "TestSupport", "readme-example-extract", "readme-example-library", "readme-example-archives",
                "readme-example-manifests", "readme-example-documents",
            ]
        ),
        .testTarget(
            name: "NotesExampleTests",
            dependencies: ["notes-example", "TestSupport"]
        ),
        // Document models written as for SwiftUI on Apple's systems, importing
        // only FileWrapperDocument (the examples' documents among them, through
        // symbolic links): compiled in Swift 6 language mode, and again, the
        // same files and tests, in Swift 5 mode and under Xcode 26's defaults
        // for an app: main-actor isolation by default, approachable
        // concurrency and member import visibility.
        .testTarget(
            name: "AppleStyleModelTests",
            dependencies: ["FileWrapperDocument", "TestSupport", "checklist-example", "album-example"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "AppleStyleSwift5ModelTests",
            dependencies: ["FileWrapperDocument", "TestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "AppleStyleMainActorModelTests",
            dependencies: ["FileWrapperDocument", "TestSupport"],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
        .testTarget(
            name: "FileWrapperDocumentTests",
            dependencies: ["FileWrapperDocument", "TestSupport", "fwk-test-child"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
