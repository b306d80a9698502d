import Foundation
import Testing
import TestSupport

/// Issue 35, item 4: wrapinspect reads Apple's flat RTFD (a serialized file
/// wrapper) as a container, recognised by its header, from a file or from
/// standard input: `dump` (`--json`, `--stored`), `digest` (the bundle's),
/// `diff`, `cat` and `unpack` (through the archives' unpacker: refusals
/// leave the destination as it was); `pack` writes it. Blobs from our
/// writer, from the Python writer of the layout (Tools/Fuzz/flat-rtfd-seeds.py)
/// and the layout document's annotated sample of Apple's bytes.
@Suite(.startsProcesses) struct FlatRTFDCommandTests {
    /// A folder `src` of every shape the format holds (an executable, a
    /// page-aligned file of mode 0600, nested and empty folders, a link, an
    /// NFD name), packed as `T.rtfd`.
    struct Bench {
        let directory: TemporaryDirectory
        let big: Data

        init(_ name: String = #function) throws {
            directory = try TemporaryDirectory(name)
            var random = SplitMix64(seed: 3504)
            big = Data(random.bytes(300_000))
            try Disk.write("notes", to: directory.appending("src/notes.txt"))
            try Disk.write("#!/bin/sh\n", to: directory.appending("src/run.sh"), mode: 0o755)
            try Disk.write(big, to: directory.appending("src/sub/big.bin"), mode: 0o600)
            try Disk.write("deep", to: directory.appending("src/sub/deep/a.txt"))
            try Disk.write("decomposed", to: directory.appending("src/Cafe\u{301}.md"))
            try FileManager.default.createDirectory(at: directory.appending("src/empty"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: directory.appending("src/link").path, withDestinationPath: "sub/deep/a.txt")
            _ = try run(["pack", "src", "T.rtfd"])
        }

        /// Runs wrapinspect in the bench; requires exit 0 unless `status` says otherwise.
        @discardableResult
        func run(_ arguments: [String], status: Int32 = 0) throws -> CommandResult {
            let result = try WrapInspectProcess.run(arguments, in: directory.url)
            try #require(result.status == status, "\(arguments): \(result.stderr)")
            return result
        }

        /// Runs `script` with `sh -c` in the bench, `$W` naming wrapinspect.
        func shell(_ script: String) throws -> CommandResult {
            let executable = try #require(WrapInspectProcess.executableURL)
            return try ChildProcess.run("/bin/sh", ["-c", script], in: directory.url, environment: ["W": executable.path])
        }

        func write(_ bytes: some Sequence<UInt8>, to name: String) throws {
            try Data(bytes).write(to: directory.appending(name))
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func ourBlobReadsAsTheTreeItHolds() throws {
        let bench = try Bench()
        let digest = try bench.run(["digest", "src"]).stdout
        #expect(try bench.run(["digest", "T.rtfd"]).stdout == digest, "the bundle's tree digest")

        // The same lines as the bundle's, but for the root, whose own attributes the format does not store.
        let dump = try bench.run(["dump", "T.rtfd"]).stdoutLines
        #expect(dump.dropFirst() == (try bench.run(["dump", "src"]).stdoutLines.dropFirst()))
        #expect(dump.contains { $0.hasPrefix("-rwxr-xr-x") && $0.hasSuffix("run.sh") }, "\(dump)")
        #expect(dump.contains { $0.hasPrefix("-rw-------") && $0.hasSuffix("big.bin") }, "\(dump)")

        let limited = try bench.run(["digest", "--max-entries", "3", "T.rtfd"], status: 2)
        #expect(limited.stderr.contains("T.rtfd") && limited.stderr.contains("--max-entries"), "\(limited.stderr)")

        let json = try bench.run(["dump", "--json", "T.rtfd"]).stdout
        #expect(json.contains("\"flat RTFD\""), "\(json.prefix(300))")
        let stored = try bench.run(["dump", "--stored", "T.rtfd"]).stdoutLines
        #expect(stored.contains { $0.hasSuffix("link -> sub/deep/a.txt") }, "\(stored)")
        #expect(stored.last == "9 entries, 300029 bytes in files", "\(stored)")

        #expect(try bench.run(["cat", "T.rtfd", "sub/big.bin"]).stdoutBytes == Array(bench.big))
        let link = try bench.run(["cat", "T.rtfd", "link"], status: 2)
        #expect(link.stderr.contains("T.rtfd") && link.stderr.contains("symbolic link"), "\(link.stderr)")

        // Whole seconds and the root's unstored attributes are no difference; a changed byte is one.
        try bench.run(["diff", "src", "T.rtfd"])
        try Disk.write("Notes", to: bench.directory.appending("src/notes.txt"))
        let changed = try bench.run(["diff", "src", "T.rtfd"], status: 1)
        #expect(changed.stdout.contains("notes.txt"), "\(changed.stdout)")

        // What a reader written from the layout document, not from our code, reads.
        let python = try FlatRTFDPythonReader.read(bench.directory.appending("T.rtfd").path)
        #expect(python.top == "directory" && python.entries.count == 9)
        #expect(python.utf8Name == Array("src".utf8))
    }

    @Test func standardInputIsReadAsTheFileIs() throws {
        let bench = try Bench()
        for arguments in [["digest"], ["dump", "--digests"], ["dump", "--stored"], ["cat", "-", "sub/big.bin"]] {
            let command = arguments.count == 3 ? arguments : arguments + ["-"]
            let expected = try bench.run(command.map { $0 == "-" ? "T.rtfd" : $0 })
            // A pipe, read as it comes; a file redirected, read as the file (once is enough).
            for feed in ["cat T.rtfd | "] + (command[0] == "digest" ? ["< T.rtfd "] : []) {
                let result = try bench.shell(feed + "\"$W\" " + command.map { "'\($0)'" }.joined(separator: " "))
                #expect(result.status == 0, "\(feed)\(command): \(result.stderr)")
                // dump names its root by the path given.
                let output = { (result: CommandResult) in command[1] == "--digests" ? Array(result.stdoutLines.dropFirst().joined().utf8) : result.stdoutBytes }
                #expect(output(result) == output(expected), "\(feed)\(command)")
                #expect(result.stdoutBytes.count > 0)
            }
        }
        let unpacked = try bench.shell("cat T.rtfd | \"$W\" unpack - piped")
        #expect(unpacked.status == 0, "\(unpacked.stderr)")
        #expect(try bench.run(["digest", "piped"]).stdout == (try bench.run(["digest", "src"]).stdout))
    }

    @Test func packThenUnpackRoundTrips() throws {
        let bench = try Bench()
        try bench.run(["unpack", "T.rtfd"])
        try bench.run(["unpack", "T.rtfd", "out"])
        for copy in ["T", "out"] {
            #expect(try bench.run(["digest", copy]).stdout == (try bench.run(["digest", "src"]).stdout), "\(copy)")
        }
        let mode = { (path: String) in try (FileManager.default.attributesOfItem(atPath: bench.directory.appending(path).path)[.posixPermissions] as? Int) }
        #expect(try mode("out/run.sh") == 0o755 && mode("out/sub/big.bin") == 0o600)
        let time = { (path: String) in try (FileManager.default.attributesOfItem(atPath: bench.directory.appending(path).path)[.modificationDate] as? Date) }
        let original = try #require(try time("src/notes.txt"))
        #expect(try time("out/notes.txt") == Date(timeIntervalSince1970: original.timeIntervalSince1970.rounded(.down)), "whole seconds kept")

        // Deterministic, to a file or a pipe, chosen by --format as by the ending.
        let piped = try bench.shell("\"$W\" pack --format flat-rtfd src - | cat > piped.bin")
        #expect(piped.status == 0, "\(piped.stderr)")
        let written = try Data(contentsOf: bench.directory.appending("T.rtfd"))
        #expect(try Data(contentsOf: bench.directory.appending("piped.bin")) == written)
        #expect(written.prefix(8) == Data("rtfd".utf8 + [0, 0, 0, 0]))
        let refused = try bench.run(["pack", "--level", "3", "src", "U.rtfd"], status: 2)
        #expect(refused.stderr.contains("flat RTFD"), "\(refused.stderr)")
        // A time the format cannot hold: refused, nothing written.
        let early = try bench.shell("touch -d '1969-12-31 23:00:00 UTC' src/notes.txt && \"$W\" pack src U.rtfd")
        #expect(early.status == 2 && early.stderr.contains("src cannot be a flat RTFD"), "\(early.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bench.directory.appending("U.rtfd").path))
    }

    /// Blobs others made: the Python writer of the layout document, and Apple's bytes of its annotated sample.
    @Test func blobsOthersWroteAreRead() throws {
        let bench = try Bench()
        let seeds = try ChildProcess.run("/usr/bin/python3", [Self.repository.appendingPathComponent("Tools/Fuzz/flat-rtfd-seeds.py").path, bench.directory.url.path])
        try #require(seeds.status == 0, "\(seeds.stderr)")

        // nested.rtfd, and the same tree as a bundle.
        try Disk.write("first", to: bench.directory.appending("b/a.txt"))
        try Disk.write("second", to: bench.directory.appending("b/1__#$!@%!#__a.txt"), mode: 0o600)
        try Disk.write("x", to: bench.directory.appending("b/sub/inner"))
        try FileManager.default.createSymbolicLink(atPath: bench.directory.appending("b/link").path, withDestinationPath: "sub/inner")
        #expect(try bench.run(["digest", "nested.rtfd"]).stdout == (try bench.run(["digest", "b"]).stdout))
        #expect(try bench.run(["cat", "nested.rtfd", "1__#$!@%!#__a.txt"]).stdout == "second")
        #expect(try bench.run(["dump", "nested.rtfd"]).stdoutLines.contains { $0.hasPrefix("-rw-------") && $0.hasSuffix("1__#$!@%!#__a.txt") })

        // A top-level file: its one member is ".", its digest a flat file's; nothing to unpack.
        #expect(try bench.run(["cat", "leaf.rtfd", "."]).stdout == "alone")
        try Disk.write("alone", to: bench.directory.appending("alone.txt"))
        #expect(try bench.run(["digest", "leaf.rtfd"]).stdout == (try bench.run(["digest", "alone.txt"]).stdout))
        let leaf = try bench.run(["unpack", "leaf.rtfd", "leaf"], status: 2)
        #expect(leaf.stderr.contains("leaf.rtfd: the flat RTFD holds a single file"), "\(leaf.stderr)")

        #expect(try bench.run(["cat", "aligned.rtfd", "big"]).stdoutBytes == Array((0..<20).flatMap { _ in 0...255 as ClosedRange<UInt8> }))

        // Without its header a blob is not told from other bytes: read as what they look like (here, to libarchive, lzma).
        let headerless = try bench.run(["cat", "headerless.rtfd", "f"], status: 2)
        #expect(!headerless.stderr.contains("flat RTFD"), "\(headerless.stderr)")

        try bench.write(FlatRTFDBytes.annotatedSample(), to: "sample")
        #expect(try bench.run(["cat", "sample", "TXT.rtf"]).stdoutBytes == FlatRTFDBytes.sampleRTF)
        let sample = try bench.run(["dump", "sample"]).stdoutLines
        #expect(sample.contains { $0.hasPrefix("-rw-rw-rw-") && $0.hasSuffix("TXT.rtf") }, "\(sample)")
        #expect(try bench.run(["dump", "--json", "sample"]).stdout.contains("1753498387"))
    }

    /// A cut or misversioned blob is an error naming it, for every command, and an unpack leaves nothing.
    @Test func aMalformedBlobIsAClearError() throws {
        let bench = try Bench()
        let whole = try Data(contentsOf: bench.directory.appending("T.rtfd"))
        try bench.write(whole.prefix(whole.count / 2), to: "cut.rtfd")
        try bench.write(whole.prefix(12), to: "short.rtfd")
        try bench.write(Data("rtfd".utf8 + [0, 1, 0, 0]) + whole.dropFirst(8), to: "version.rtfd")
        try Disk.write("kept", to: bench.directory.appending("dest/marker"))
        let before = try Disk.names(in: bench.directory.url)
        for (blob, message) in [("cut.rtfd", "damaged or cut short"), ("short.rtfd", "damaged or cut short"), ("version.rtfd", "version")] {
            for command in [["dump", blob], ["digest", blob], ["cat", blob, "notes.txt"], ["unpack", "--force", blob, "dest"], ["dump", "--stored", blob]] {
                let result = try bench.run(command, status: 2)
                #expect(result.stderr.hasPrefix("wrapinspect: \(blob): ") && result.stderr.contains(message), "\(command): \(result.stderr)")
            }
        }
        #expect(try Disk.names(in: bench.directory.url) == before, "no temporary left")
        #expect(try Disk.names(in: bench.directory.appending("dest")) == ["marker"])
    }

    /// Keys that leave the tree, and a link that does, are refused by name; the destination stays as it was.
    @Test func aHostileBlobIsRefusedAndTheDestinationKept() throws {
        let bench = try Bench()
        let file = FlatRTFDBytes.data(Array("x".utf8))
        let blobs: [(name: String, blob: Data, entry: String)] = [
            ("dotdot", FlatRTFDBytes.blob([("sub", FlatRTFDBytes.dictionary([(Array("..".utf8), file)]))]), "sub/.."),
            ("slash", FlatRTFDBytes.blob([("a/b", file)]), "a/b"),
            ("absolute", FlatRTFDBytes.blob([("/etc/passwd", file)]), "/etc/passwd"),
            ("outside", FlatRTFDBytes.blob([("evil", FlatRTFDBytes.data(Array("../outside".utf8))),
                                            (".", FlatRTFDBytes.info([(Array("evil".utf8), [0, 0o777, 4, 0])]))]), "evil"),
        ]
        try Disk.write("kept", to: bench.directory.appending("dest/marker"))
        for (name, blob, _) in blobs {
            try blob.write(to: bench.directory.appending(name))
        }
        let before = try Disk.names(in: bench.directory.url)
        for (name, _, entry) in blobs {
            let result = try bench.run(["unpack", "--force", name, "dest"], status: 2)
            #expect(result.stderr.hasPrefix("wrapinspect: \(name): \"\(entry)\": "), "\(result.stderr)")
            #expect(try Disk.names(in: bench.directory.appending("dest")) == ["marker"], "\(name)")
            #expect(try Disk.names(in: bench.directory.url) == before, "\(name): no temporary left")
        }
        // Listed as stored, unchecked, as an archive's entries are.
        let stored = try bench.run(["dump", "--stored", "slash"]).stdoutLines
        #expect(stored.contains { $0.hasSuffix("  a/b") }, "\(stored)")
    }
}
