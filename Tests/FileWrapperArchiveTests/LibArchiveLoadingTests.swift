import Foundation
import Testing
import TestSupport

/// libarchive is loaded on first use (Sources/CArchive/CArchive.c), not at
/// the program's start: `wrapinspect cat` of a zip member, which reads the
/// zip by its central directory itself, never opens libarchive.so.13 nor
/// what it needs (libxml2, ICU), while `dump` of a tar loads it; without
/// the library, `cat` still works and `dump` ends naming it.
@Suite(.startsProcesses) struct LibArchiveLoadingTests {
    /// The files `wrapinspect arguments` opens, every thread's, as strace
    /// sees them, and what it writes to standard output.
    static func filesOpened(by arguments: [String], in directory: TemporaryDirectory) throws -> (opened: [String], output: [UInt8]) {
        let wrapinspect = try #require(BuiltProgram.url(of: "wrapinspect")).path
        // LeakSanitizer cannot run under strace.
        let sanitizerOptions = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let result = try ChildProcess.run("/usr/bin/env", [
            "ASAN_OPTIONS=\(sanitizerOptions)detect_leaks=0", "strace", "-f", "-qq", "-e", "trace=open,openat,openat2",
            "-o", "trace.txt", wrapinspect,
        ] + arguments, in: directory.url)
        try #require(result.status == 0, "\(result.stderr)")
        let trace = try String(contentsOf: directory.appending("trace.txt"), encoding: .utf8)
        let opened = trace.split(separator: "\n").filter { !$0.contains("ENOENT") }.compactMap { line in
            line.split(separator: "\"").dropFirst().first.map(String.init)
        }
        return (opened, result.stdoutBytes)
    }

    static func libraries(in opened: [String]) -> [String] {
        opened.filter { path in ["libarchive.so", "libxml2.so", "libicuuc.so"].contains { path.contains($0) } }
    }

    @Test func catOfAZipMemberLoadsNoLibarchive() throws {
        let directory = try TemporaryDirectory()
        let files = ZipContainerReadTests.documentFiles(seed: 7)
        let zip = try ZipContainerReadTests.infoZipDocument(files, in: directory)
        let (path, expected) = try #require(files.last)
        let (opened, output) = try Self.filesOpened(by: ["cat", zip.path, path], in: directory)
        #expect(output == expected)
        #expect(opened.contains { $0.hasSuffix("/doc.zip") }, "strace saw the zip opened: \(opened)")
        #expect(Self.libraries(in: opened).isEmpty)
    }

    @Test func dumpOfATarLoadsLibarchive() throws {
        let directory = try TemporaryDirectory()
        try Data("hello\n".utf8).write(to: directory.appending("note.txt"))
        try Interop.run("tar", ["-cf", "note.tar", "note.txt"], in: directory.url)
        let (opened, output) = try Self.filesOpened(by: ["dump", "note.tar"], in: directory)
        #expect(String(decoding: output, as: UTF8.self).contains("note.txt"))
        #expect(Self.libraries(in: opened).contains { $0.contains("libarchive.so.13") }, "opened: \(opened)")
    }

    /// In a mount namespace of its own (root's `unshare -m`), libarchive's
    /// file is hidden under an empty one: `dump` of a tar ends with the
    /// dynamic loader's status for a missing library and a message naming
    /// it, and `cat` of a zip member works as before.
    @Test func withoutLibarchiveOnlyWhatNeedsItStops() throws {
        let directory = try TemporaryDirectory()
        let files = ZipContainerReadTests.documentFiles(seed: 8)
        let zip = try ZipContainerReadTests.infoZipDocument(files, in: directory)
        let (path, expected) = try #require(files.first)
        try Data("hello\n".utf8).write(to: directory.appending("note.txt"))
        try Interop.run("tar", ["-cf", "note.tar", "note.txt"], in: directory.url)
        let wrapinspect = try #require(BuiltProgram.url(of: "wrapinspect")).path
        let library = URL(fileURLWithPath: "/usr/lib/x86_64-linux-gnu/libarchive.so.13").resolvingSymlinksInPath().path
        try #require(FileManager.default.fileExists(atPath: library))
        func hidden(_ arguments: [String]) throws -> CommandResult {
            try ChildProcess.run("/usr/bin/unshare", [
                "-m", "sh", "-c", "mount --bind /dev/null \"$0\" && exec \"$@\"", library, wrapinspect,
            ] + arguments, in: directory.url)
        }
        let dump = try hidden(["dump", "note.tar"])
        #expect(dump.status == 127, "\(dump.stderr)")
        #expect(dump.stderr.hasPrefix("FileWrapperArchive: cannot load libarchive.so.13: "), "\(dump.stderr)")
        let cat = try hidden(["cat", zip.path, path])
        #expect(cat.status == 0, "\(cat.stderr)")
        #expect(cat.stdoutBytes == expected)
    }
}
