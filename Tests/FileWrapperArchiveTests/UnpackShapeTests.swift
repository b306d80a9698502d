import Foundation
import Testing
import TestSupport

/// Archives whose shape, not size, made unpacking slow (issue 20, item 4):
/// a 1,000-level path took 9.3 s and 500,000 `openat` calls, because
/// finishing the directories reopened every chain from the root; a 300-byte
/// `.tar.xz` of eight 1,000-level chains 88 s; 1,000 directories taking
/// turns at the ends of two deep chains 93 s; 1,000 symlinks whose targets
/// have 2,048 names 65 s, resolving each target in time quadratic in its
/// length. Made by `Tools/make-deep-archives.py` (Python's tarfile and xz),
/// and unpacked by the built `wrapinspect` under strace.
///
/// What is checked is the cost that grew with depth × entries: the system
/// calls that open and make directories, a small constant per directory
/// made, counted beyond those of unpacking a two-level path (the process's
/// start). The symlinks' cost was in memory, not in system calls; a
/// generous bound on the time catches it, and a return of any quadratic
/// shape. The comparison with bsdtar is the benchmark's
/// (`Tools/run-benchmark.sh --formats shapes`, docs/performance.md).
@Suite(.startsProcesses) struct UnpackShapeTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let generator = repository.appendingPathComponent("Tools/make-deep-archives.py").path

    /// Seconds an unpack may take here: the shapes take 1 to 3 s each in a
    /// debug build, and took minutes before. Sanitizer builds (the reduced
    /// runs) are ten to thirty times slower under strace: alternating, at 300
    /// directories, took 60 s under AddressSanitizer on a loaded machine.
    static let timeBound = TestSizes.pick(full: 60, reduced: 180)
    /// Calls that open (`openat`, `openat2`) a directory made may take; the
    /// unpack makes each parent once, then opens it for its entries and
    /// again to apply its mode and time.
    static let opensPerDirectory = 3

    /// One of `make-deep-archives.py`'s shapes, at the sizes given.
    struct Shape: Sendable, CustomTestStringConvertible {
        var name: String
        var count: Int
        var depth: Int

        var testDescription: String { "\(name), count \(count), depth \(depth)" }
    }

    /// The attacker's sizes, but for deep-chains: three chains with every
    /// level an entry prove what eight would (deep-chains-tiny has eight).
    /// A reduced run (``TestSizes``) cuts the counts, which the calls are
    /// counted against, and the depth of the directory chains to 300
    /// levels: reopening every chain from its root, the cost that grew with
    /// depth × entries, still makes fifty times the calls allowed for a
    /// directory, and a sanitizer watches the same code make paths of 600
    /// bytes (in pax headers, as the 2,000-byte ones are), in a tenth of the time.
    /// The links keep their 2,048-name targets, just under `PATH_MAX`.
    static let shapes = [
        Shape(name: "deep-single", count: 1, depth: chainDepth),
        Shape(name: "deep-chains", count: TestSizes.pick(full: 3, reduced: 1), depth: chainDepth),
        Shape(name: "deep-chains-tiny", count: TestSizes.pick(full: 8, reduced: 2), depth: chainDepth),
        Shape(name: "alternating", count: TestSizes.pick(full: 1000, reduced: 100), depth: chainDepth),
        Shape(name: "long-links", count: TestSizes.pick(full: 1000, reduced: 100), depth: 2048),
    ]
    static let chainDepth = TestSizes.pick(full: 1000, reduced: 300)

    @Test(arguments: shapes)
    func unpackingCostsAConstantPerDirectory(_ shape: Shape) async throws {
        let measured = try await onThreadOfItsOwn { try Self.measure(shape) }
        let (archive, start, run) = (measured.archive, measured.start, measured.run)
        #expect(run.finished && measured.elapsed < .seconds(Self.timeBound),
                "\(measured.elapsed) to unpack \(archive.entries) entries (killed at \(Self.timeBound) s)")

        let opens = run.calls["openat", default: 0] + run.calls["openat2", default: 0] - start["openat", default: 0] - start["openat2", default: 0]
        #expect(opens <= Self.opensPerDirectory * archive.directories,
                "\(opens) calls opened directories to make \(archive.directories) (beyond the process's start)")
        let made = run.calls["mkdirat", default: 0] - start["mkdirat", default: 0]
        #expect(made <= archive.directories, "\(made) mkdirat calls to make \(archive.directories) directories")
        #expect(run.calls["symlinkat", default: 0] == archive.symlinks)

        if let listing = measured.listing {
            Self.expectTree(listing, holds: archive, linkTarget: Array(repeating: "a", count: shape.depth).joined(separator: "/"))
        }
    }

    /// What ``measure(_:)`` found: the archive, the calls of unpacking a
    /// two-level path, the shape's unpack and its time, and `find`'s
    /// listing of the tree it made if it finished.
    struct Measurement: Sendable {
        var archive: Archive
        var start: [String: Int]
        var run: Run
        var elapsed: Duration
        var listing: String?
    }

    /// Writes `shape` and a two-level path, unpacks both under strace,
    /// and lists the shape's tree; on a thread of its own, since it waits
    /// for child processes.
    static func measure(_ shape: Shape) throws -> Measurement {
        let directory = try TemporaryDirectory()
        let archive = try make(shape, in: directory)
        let baseline = try make(Shape(name: "deep-single", count: 1, depth: 2), in: directory, as: "baseline")
        let start = try unpack(baseline.path, into: directory.appending("baseline-out"), directory).calls

        let clock = ContinuousClock()
        let began = clock.now
        let run = try unpack(archive.path, into: directory.appending("out"), directory)
        let elapsed = clock.now - began
        // Kind, mode, time and link target of everything below the tree.
        let listing = run.finished
            ? try Interop.run("find", [directory.appending("out").path, "-mindepth", "1", "-printf", "%y %m %T@ %l\\n"], in: directory.url).stdout
            : nil
        return Measurement(archive: archive, start: start, run: run, elapsed: elapsed, listing: listing)
    }

    /// An archive that `make-deep-archives.py` wrote, and what it says
    /// unpacking it makes.
    struct Archive: Sendable {
        var path: String
        var entries: Int
        var directories: Int
        var symlinks: Int
    }

    /// A line of a tool's output that the test cannot read.
    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes `shape` as a `.tar.xz` into its own directory, `name` in `directory`.
    static func make(_ shape: Shape, in directory: TemporaryDirectory, as name: String = "archive") throws -> Archive {
        let out = directory.appending(name).path
        let line = try Interop.run("python3", [
            generator, "--out", out, "--count", String(shape.count), "--depth", String(shape.depth), shape.name,
        ], in: directory.url).stdout
        // "SHAPE FILE entries=E directories=D symlinks=S bytes=B"
        let fields = line.split(whereSeparator: \.isWhitespace)
        func number(_ key: String) throws -> Int {
            guard let value = fields.first(where: { $0.hasPrefix(key + "=") }).flatMap({ Int($0.dropFirst(key.count + 1)) }) else {
                throw Unexpected(description: "no \(key) in the generator's line \(line)")
            }
            return value
        }
        return Archive(path: out + "/" + shape.name + ".tar.xz", entries: try number("entries"),
                       directories: try number("directories"), symlinks: try number("symlinks"))
    }

    /// What an unpack under strace did: how many times it called each of
    /// `openat`, `openat2`, `mkdirat` and `symlinkat`, and whether it
    /// finished before it was killed.
    struct Run: Sendable {
        var calls: [String: Int]
        var finished: Bool
    }

    /// Unpacks `archive` with `wrapinspect` under `strace -f -c`, killed
    /// by `timeout` after ``timeBound`` seconds (strace still counts the
    /// calls made until then, and the few of `timeout` itself). LeakSanitizer
    /// is off in AddressSanitizer builds: it refuses to run under ptrace.
    static func unpack(_ archive: String, into destination: URL, _ directory: TemporaryDirectory) throws -> Run {
        guard let wrapinspect = BuiltProgram.url(of: "wrapinspect")?.path else {
            throw Unexpected(description: "no wrapinspect beside the test bundle")
        }
        let summary = destination.path + ".strace"
        let sanitizerOptions = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        var finished = true
        do {
            try Interop.run("env", [
                "ASAN_OPTIONS=\(sanitizerOptions)detect_leaks=0",
                "strace", "-f", "-c", "-e", "trace=openat,openat2,mkdirat,symlinkat", "-o", summary,
                "timeout", "-s", "KILL", String(timeBound), wrapinspect, "unpack", archive, destination.path,
            ], in: directory.url)
        } catch let failure as Interop.ToolFailure where failure.killed || failure.output.status == 128 + SIGKILL {
            finished = false
        }
        return Run(calls: try calls(in: String(contentsOfFile: summary, encoding: .utf8)), finished: finished)
    }

    /// The calls column of `strace -c`'s table, by system call:
    /// `% time, seconds, usecs/call, calls, [errors,] syscall`.
    static func calls(in summary: String) throws -> [String: Int] {
        var calls: [String: Int] = [:]
        for line in summary.split(separator: "\n") {
            let columns = line.split(whereSeparator: \.isWhitespace)
            guard columns.count >= 5, let name = columns.last, name != "total", let count = Int(columns[3]) else { continue }
            calls[String(name)] = count
        }
        guard !calls.isEmpty else { throw Unexpected(description: "no system calls in strace's summary:\n\(summary)") }
        return calls
    }

    /// Checks that `find`'s `listing` of a tree holds the directories and
    /// symlinks `archive` makes, each with mode 0755 or 0777, the archive's
    /// entries with its time (the directories' applied at the end, through
    /// the descriptors the test counts; implied ones keep the time they
    /// were made), and every symlink pointing at `linkTarget`, byte for byte.
    static func expectTree(_ listing: String, holds archive: Archive, linkTarget: String) {
        var (directories, timed, symlinks, wrong) = (0, 0, 0, [Substring]())
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4 else {
                wrong.append(line.prefix(80))
                continue
            }
            let archiveTime = fields[2] == "1767225600.0000000000"
            switch (fields[0], fields[1]) {
            case ("d", "755"):
                directories += 1
                if archiveTime { timed += 1 }
            case ("l", "777") where archiveTime && fields[3].utf8.elementsEqual(linkTarget.utf8):
                symlinks += 1
            default:
                wrong.append(line.prefix(80))
            }
        }
        #expect(directories == archive.directories)
        #expect(timed == archive.entries - archive.symlinks, "directory entries with the archive's time")
        #expect(symlinks == archive.symlinks)
        #expect(wrong.count == 0, "entries with another kind, mode, time or target, such as \(wrong.prefix(3))")
    }
}
