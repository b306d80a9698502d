import Foundation
import Testing
import TestSupport

/// The README's Swift blocks: every example is a program of its own that
/// the build compiles from the README as it stands (the ReadmeExamples
/// plugin); here each runnable one runs in a folder holding what its first
/// comment names, and the Package.swift block is read by SwiftPM as a
/// manifest whose products are ours.
@Suite struct ReadmeExampleTests {
    /// A Swift block, as `readme-example-extract list` lists it.
    struct Block {
        var line: Int
        /// `example`, `runnable` or `manifest`.
        var kind: String
        var name: String
    }

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // ReadmeExampleTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package
    static let readme = root.appendingPathComponent("README.md")

    /// The blocks of `readme`, read by the same program the plugin runs.
    static func blocks(of readme: URL = readme) throws -> [Block] {
        let result = try BuiltProgram.run("readme-example-extract", ["list", readme.path], in: root)
        try #require(result.status == 0, "\(result.stderr)")
        return try result.stdoutLines.map { line in
            let fields = line.split(separator: " ")
            try #require(fields.count == 3, "\(line)")
            return Block(line: try #require(Int(fields[0])), kind: String(fields[1]), name: String(fields[2]))
        }
    }

    @Test func everyExampleIsAProgramOfTheBuild() throws {
        let examples = try Self.blocks().filter { $0.kind != "manifest" }
        #expect(!examples.isEmpty)
        for example in examples {
            #expect(BuiltProgram.url(of: "readme-example-\(example.name)") != nil,
                    "README.md:\(example.line): the example \(example.name) has no target readme-example-\(example.name) in Package.swift")
        }
    }

    /// What each runnable example's first comment says its folder holds,
    /// and what must be there after it ran.
    static let runs: [String: (prepare: @Sendable (URL) throws -> Void, check: @Sendable (URL, CommandResult) throws -> Void)] = [
        "library": (prepare: { _ in }, check: { folder, _ in
            let index = try Data(contentsOf: folder.appendingPathComponent("Notes.package/index.json"))
            #expect(Array(index) == Array("{\"v\":2}".utf8))
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Notes.package/Media").path))
        }),
        "archives": (prepare: copyJournal, check: { folder, result in
            let copied = try Data(contentsOf: folder.appendingPathComponent("Copy.journal/index.json"))
            #expect(copied == (try Data(contentsOf: folder.appendingPathComponent("Travel.journal/index.json"))))
            #expect(result.stdoutLines.contains("index.json 853"))
        }),
        "manifests": (prepare: copyJournal, check: { _, result in
            let digests = result.stdoutLines.prefix(2)
            #expect(digests.count == 2 && digests.first == digests.last && digests.first!.hasPrefix("fwk-tree-v1:"))
        }),
        "documents": (prepare: { folder in
            try FileManager.default.copyItem(
                at: root.appendingPathComponent("Fixtures/Documents/Notes-Info.plist"),
                to: folder.appendingPathComponent("Info.plist"))
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Trip.notes"), withIntermediateDirectories: false)
            try Data("Arrived.\n".utf8).write(to: folder.appendingPathComponent("Trip.notes/Day 1"))
        }, check: { folder, _ in
            let added = try Data(contentsOf: folder.appendingPathComponent("Trip.notes/Day 3"))
            let kept = try Data(contentsOf: folder.appendingPathComponent("Trip.notes/Day 1"))
            let copy = try Data(contentsOf: folder.appendingPathComponent("Trip.noteszip"))
            #expect(Array(added) == Array("Sintra.".utf8))
            #expect(Array(kept) == Array("Arrived.\n".utf8))
            #expect(Array(copy.prefix(2)) == Array("PK".utf8))
        }),
    ]

    static func copyJournal(into folder: URL) throws {
        let copy = folder.appendingPathComponent("Travel.journal")
        try FileManager.default.copyItem(at: root.appendingPathComponent("Fixtures/Travel.journal"), to: copy)
        try FileManager.default.createDirectory(at: copy.appendingPathComponent("Drafts"), withIntermediateDirectories: true)
    }

    @Test func runnableExamplesRunAsPasted() throws {
        let runnable = try Self.blocks().filter { $0.kind == "runnable" }
        #expect(!runnable.isEmpty)
        for example in runnable {
            let run = try #require(Self.runs[example.name], "README.md:\(example.line): no folder is prepared for the runnable example \(example.name)")
            let folder = try TemporaryDirectory("readme-\(example.name)")
            try run.prepare(folder.url)
            let result = try BuiltProgram.run("readme-example-\(example.name)", [], in: folder.url)
            #expect(result.status == 0 && result.exited, "readme-example-\(example.name): \(result.stderr)")
            try run.check(folder.url, result)
        }
    }

    /// The README's two processes: the documents example run twice at once,
    /// each adding its own note to one package, keeps both notes (a save
    /// refused because the other saved first is met by revert and again).
    @Test func theDocumentsExampleRunTwiceAtOnceKeepsBothNotes() async throws {
        let folder = try TemporaryDirectory("readme-documents-twice")
        try Self.runs["documents"]!.prepare(folder.url)
        let program = try #require(BuiltProgram.url(of: "readme-example-documents"))

        let url = folder.url
        async let third = ChildProcess.run(program.path, ["Day 3"], in: url)
        async let fourth = ChildProcess.run(program.path, ["Day 4"], in: url)

        for result in try await [third, fourth] { #expect(result.status == 0 && result.exited, "\(result.stderr)") }
        for day in ["Day 1", "Day 3", "Day 4"] {
            #expect(FileManager.default.fileExists(atPath: folder.appending("Trip.notes/\(day)").path), "\(day) lost")
        }
    }

    /// A block without a marker, or with one that is not understood, is an
    /// error at its line, which fails the build.
    @Test func aSwiftBlockNeedsAMarker() throws {
        let folder = try TemporaryDirectory()
        let readme = folder.appending("README.md")
        for (text, message) in [
            ("# T\n\n```swift\nprint(1)\n```\n", "README.md:3: error: the Swift block has no marker"),
            ("<!-- example Bad_Name -->\n```swift\nprint(1)\n```\n", "README.md:2: error: the marker <!-- example Bad_Name --> is not one of these"),
            ("<!-- example a -->\n```swift\n```\n<!-- example a -->\n```swift\n```\n", "README.md:5: error: a second Swift block named \"a\""),
        ] {
            try Data(text.utf8).write(to: readme)
            let result = try BuiltProgram.run("readme-example-extract", ["list", readme.path], in: folder.url)
            #expect(result.status == 1)
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }

    /// The compiler reports an example's errors at the README's lines.
    @Test func anExampleIsCompiledAtItsReadmeLines() throws {
        let folder = try TemporaryDirectory()
        let readme = folder.appending("README.md")
        try Data("Text\n\n<!-- example one runnable -->\n```swift\nlet x = 1\n```\n".utf8).write(to: readme)
        let source = folder.appending("main.swift")
        let result = try BuiltProgram.run("readme-example-extract", ["write", readme.path, "one", source.path], in: folder.url)
        try #require(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOf: source, encoding: .utf8)
            == "#sourceLocation(file: \"\(readme.path)\", line: 5)\nlet x = 1\n#sourceLocation()\n")
    }

    /// The Package.swift block is a manifest SwiftPM reads, whose
    /// `.product(name:package:)` lines name products of ours and the
    /// package its one dependency is (a checkout, by its folder's name).
    @Test func theManifestBlockNamesOurProducts() throws {
        let folder = try TemporaryDirectory()
        let consumer = folder.appending("MyApp")
        try FileManager.default.createDirectory(at: consumer, withIntermediateDirectories: false)
        let written = try BuiltProgram.run(
            "readme-example-extract", ["write", Self.readme.path, "manifest", consumer.appendingPathComponent("Package.swift").path], in: folder.url)
        try #require(written.status == 0, "\(written.stderr)")
        let theirs = try Self.dumpPackage(consumer, scratch: folder.appending("consumer-build"))
        let ours = try Self.dumpPackage(Self.root, scratch: folder.appending("our-build"))

        let products = (ours["products"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        let dependencies = try #require(theirs["dependencies"] as? [[String: Any]])
        try #require(dependencies.count == 1, "\(dependencies)")
        let checkout = try #require((dependencies[0]["fileSystem"] as? [[String: Any]])?.first, "not a checkout: \(dependencies[0])")
        let path = try #require(checkout["path"] as? String)
        #expect(path.hasSuffix("/FileWrapperKit"), "\(path)")
        let identity = try #require(checkout["identity"] as? String)
        var named = 0
        for target in theirs["targets"] as? [[String: Any]] ?? [] {
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                guard let product = dependency["product"] as? [Any?] else { continue }
                let name = try #require(product[0] as? String)
                let package = try #require(product[1] as? String)
                #expect(products.contains { $0.utf8.elementsEqual(name.utf8) }, "\(name) is not one of our products \(products)")
                #expect(package.lowercased().utf8.elementsEqual(identity.utf8), "package: \(package), but the dependency is \(identity)")
                named += 1
            }
        }
        #expect(named > 0)
    }

    /// `swift package dump-package` of the package at `directory`, as JSON.
    static func dumpPackage(_ directory: URL, scratch: URL) throws -> [String: Any] {
        let result = try ChildProcess.run(
            "/usr/bin/env", ["swift", "package", "--package-path", directory.path, "--scratch-path", scratch.path, "dump-package"])
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    }
}
