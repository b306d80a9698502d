import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Every file of the interop corpus (`../shared/corpus`: archives from
/// libarchive's and Go's test suites, many broken on purpose) is read by
/// `wrapinspect dump` and by `wrapinspect unpack`, each in a child process
/// with a 1 GiB address space and 30 seconds: each ends with status 0, or
/// status 2 and an error that names the file; never a signal, never the
/// time limit; an unpack leaves its destination whole or nothing, and
/// nothing beside it. Where `bsdtar -tf` (same limits, C.UTF-8 locale)
/// lists a file without error, `wrapinspect dump --stored --all-formats`
/// (contents skipped, as bsdtar does) lists the same entries in the same
/// order, unless the file is one of ``refusedThoughBsdtarLists``. Our
/// default reading may still refuse such a file: for a format the
/// defaults leave out (``ArchiveReadFormats``), with an error naming it,
/// because it reads the contents that `bsdtar -t` skips and finds them
/// damaged, or because the entries make no tree (a path twice, `..`).
///
/// A reduced run (``TestSizes``: the sanitizer runs) leaves bsdtar out:
/// its listing is the same in every build, and the comparison was made at
/// full size. Every file still goes through our code under the sanitizer,
/// read in batches by `fwk-test-child read-each` (CorpusTests+Batches.swift)
/// through the library calls and limits behind `dump` and `unpack`, each
/// step with the same checks (but that the error names the file without
/// the `wrapinspect: ` of the command line), and behind `dump --stored
/// --all-formats` for those in a format our default reading leaves out,
/// but for the ``trouble`` files, on which libarchive with every format
/// spins or runs out of memory, in bsdtar as in `dump --stored --all-formats`.
@Suite(.startsProcesses) struct CorpusTests {
    /// `$FWK_CORPUS`, else `../shared/corpus` beside the checkout, else the
    /// machine's `/work/shared/corpus` (a clone elsewhere, as CI makes).
    static let corpus: URL = {
        let besideCheckout = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/corpus").standardizedFileURL
        let candidates = [ProcessInfo.processInfo.environment["FWK_CORPUS"].map { URL(fileURLWithPath: $0) }, besideCheckout,
                          URL(fileURLWithPath: "/work/shared/corpus")].compactMap { $0 }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? besideCheckout
    }()
    static let memoryLimit = 1 << 30
    static let timeLimit = 30

    /// Whether this build runs under AddressSanitizer or ThreadSanitizer
    /// (`make test-sanitizers`): their shadow memory takes terabytes of
    /// address space, so the memory limit of our programs is then one on
    /// each allocation, set through the sanitizer, and they run several
    /// times slower, so their time limit is longer. bsdtar, which is not
    /// built with a sanitizer, keeps the plain limits (its three spins last
    /// 30 s, not 150). The plain run checks the limits as stated.
    static let sanitizer: String? = {
        // The runtimes are linked into the test program: look their entry points up in it.
        let program = dlopen(nil, RTLD_NOW)
        if dlsym(program, "__asan_init") != nil { return "address" }
        if dlsym(program, "__tsan_init") != nil { return "thread" }
        return nil
    }()

    /// Files that bsdtar lists and we refuse, with the words our error must
    /// contain and why.
    static let refusedThoughBsdtarLists = [
        // A header with a bad checksum: bsdtar warns "Damaged tar archive",
        // "Retrying...", skips to the next header it can read and exits 0.
        // We refuse, because the skipped entries are missing from the listing.
        "libarchive/test_read_format_tar_pax_sun_holesdata.tar": "Damaged tar archive",
        // libarchive's own test of a Unicode Path field whose CRC-32 is not
        // that of the local name: libarchive names the member "File 4 -
        // xx.txt" from its local header, unzip and Python's zipfile list
        // "File 4 - å.txt" from the central directory. A zip whose two
        // disagree is refused (issue 20).
        "libarchive/test_read_format_zip_7075_utf8_paths.zip": "the local header names this member \"File 4 - xx.txt\"",
    ]

    /// Files that bsdtar spins on until the time limit (libarchive 3.6.2's
    /// rar5 reader returns ARCHIVE_FAILED without moving on while bsdtar
    /// keeps asking for the next header; its xar reader loops on a table of
    /// contents); they go first, so that their 30 seconds overlap the rest.
    static let bsdtarSpins: Set = [
        "libarchive/test_read_format_rar5_bad_window_sz_in_mltarc_file.rar", "libarchive/test_read_format_rar5_dirdata.rar",
        "libarchive/test_read_format_xar_doublelink.xar",
    ]

    /// Whether each file is listed by bsdtar and compared: at full size only.
    static let comparesWithBsdtar = !TestSizes.reduced

    /// The files that bsdtar spins on or runs out of memory on (libarchive
    /// 3.6.2 with every format, detecting compression itself), with how our
    /// defaults (``ArchiveReadFormats``) make unpack refuse each at once.
    static let trouble = [
        "libarchive/test_read_filter_gzip_recursive.gz": "Unrecognized archive format",
        "libarchive/test_read_format_iso_rockridge_ce_loop.iso.Z": "the archive is ISO 9660, which this reader leaves out",
        "libarchive/test_read_format_xar_doublelink.xar": "the archive is xar, which this reader leaves out",
        "libarchive/test_read_format_rar5_bad_window_sz_in_mltarc_file.rar": "the archive is RAR 5, which this reader leaves out",
        "libarchive/test_read_format_rar5_dirdata.rar": "the archive is RAR 5, which this reader leaves out",
    ]

    /// What a child process did.
    struct Outcome: Sendable {
        var status: Int32
        var signaled: Bool
        var output: Data
        var error: String
        var seconds: Double
    }

    /// Runs `arguments` under `timeout` and `prlimit` with the limits above,
    /// or `seconds` and an address space of `memoryLimit` bytes
    /// (``ChildProcess``). Our programs under a sanitizer get its limits
    /// instead; `bsdtar`, which no sanitizer slows, keeps the plain ones.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], sanitized: Bool = true, seconds: Int = timeLimit,
        memoryLimit: Int = memoryLimit
    ) throws -> Outcome {
        var environment = environment
        let limits: [String]
        if let sanitizer, sanitized {
            // No address-space limit under a sanitizer: the sanitizer's own
            // allocator refuses any one allocation over the same size instead.
            limits = [String(seconds * 5)]
            let options = sanitizer == "address" ? "ASAN_OPTIONS" : "TSAN_OPTIONS"
            let inherited = ProcessInfo.processInfo.environment[options].map { $0 + ":" } ?? ""
            environment[options] = inherited + "max_allocation_size_mb=\(memoryLimit >> 20):allocator_may_return_null=1"
        } else {
            limits = [String(seconds), "/usr/bin/prlimit", "--as=\(memoryLimit)", "--"]
        }
        let started = Date()
        let result = try ChildProcess.run("/usr/bin/timeout", ["-s", "KILL"] + limits + arguments, environment: environment)
        return Outcome(
            status: result.status, signaled: !result.exited, output: Data(result.stdoutBytes), error: result.stderr,
            seconds: Date().timeIntervalSince(started))
    }

    /// Whether `line` is a sanitizer's note that it refused an allocation
    /// over the limit set in ``run(_:environment:sanitized:seconds:memoryLimit:)``
    /// (`==123==WARNING: AddressSanitizer failed to allocate 0x... bytes`).
    static func isSanitizerAllocationWarning(_ line: Substring) -> Bool {
        sanitizer != nil && line.hasPrefix("==") && line.contains("Sanitizer failed to allocate")
    }

    /// The lines of a listing.
    static func lines(_ output: Data) -> [String] {
        var lines = output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// A line of bsdtar's listing in our spelling: bsdtar prints `\ooo`
    /// (octal) and `\n`-style escapes for bytes it cannot print; we show
    /// every path as ``PathDisplay`` does. In a zip, a name that is not
    /// UTF-8 is code page 437 to us (issue 22), bytes to bsdtar.
    static func ourSpelling(ofBsdtarLine line: String, zip: Bool) -> String {
        let bytes = bytes(ofBsdtarLine: line)
        return PathDisplay.text(zip && String(validating: bytes, as: UTF8.self) == nil ? codePage437(bytes) : bytes)
    }

    /// `bytes` decoded from code page 437 to UTF-8 by glibc's iconv
    /// (`IBM437`), a decoder independent of ours.
    static func codePage437(_ bytes: [UInt8]) -> [UInt8] {
        let converter = iconv_open("UTF-8", "IBM437")
        guard converter != iconv_t(bitPattern: -1) else { return bytes }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4)
        let written = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                var (inPointer, inLeft) = (inputBuffer.baseAddress, inputBuffer.count)
                var (outPointer, outLeft) = (outputBuffer.baseAddress, outputBuffer.count)
                _ = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                return outputBuffer.count - outLeft
            }
        }
        return output.prefix(written).map { UInt8(bitPattern: $0) }
    }

    /// Whether the file at `path` starts as a zip does (`PK\3\4`, or an empty zip's `PK\5\6`).
    static func startsAsZip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path), let head = try? handle.read(upToCount: 4) else { return false }
        return [Data([0x50, 0x4B, 3, 4]), Data([0x50, 0x4B, 5, 6])].contains(head)
    }

    /// The bytes a line of bsdtar's listing stands for.
    static func bytes(ofBsdtarLine line: String) -> [UInt8] {
        let escapes: [UInt8: UInt8] = [
            UInt8(ascii: "a"): 7, UInt8(ascii: "b"): 8, UInt8(ascii: "f"): 12, UInt8(ascii: "n"): 10,
            UInt8(ascii: "r"): 13, UInt8(ascii: "t"): 9, UInt8(ascii: "v"): 11, UInt8(ascii: "\\"): 0x5C,
        ]
        let octal = UInt8(ascii: "0")...UInt8(ascii: "7")
        let input = Array(line.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < input.count {
            if input[index] == 0x5C, index + 1 < input.count {
                if let byte = escapes[input[index + 1]] {
                    bytes.append(byte)
                    index += 2
                    continue
                }
                if index + 3 < input.count, input[(index + 1)...(index + 3)].allSatisfy(octal.contains) {
                    bytes.append(input[(index + 1)...(index + 3)].reduce(0) { $0 &* 8 &+ ($1 - UInt8(ascii: "0")) })
                    index += 4
                    continue
                }
            }
            bytes.append(input[index])
            index += 1
        }
        return bytes
    }

    /// One corpus file: our dump and unpack, bsdtar's listing, and, when
    /// bsdtar lists it, our stored listing as bsdtar makes it (every
    /// format, contents skipped).
    struct Result: Sendable {
        var file: String
        var ours: Outcome
        var unpack: Outcome
        /// What the unpack's directory held afterwards, besides nothing.
        var leftInUnpackArea: [String]
        /// bsdtar's listing, at full size (``comparesWithBsdtar``).
        var bsdtar: Outcome?
        /// `dump --stored --all-formats --json`: where bsdtar lists the
        /// file, or, in a reduced run, where our default reading leaves its
        /// format out (but for the ``trouble`` files).
        var oursLikeBsdtar: Outcome?
    }

    /// The paths of `dump --stored --json`, one per line, spelled as
    /// ``PathDisplay`` spells them; `nil` for a line that is not an entry.
    static func storedPaths(_ output: Data) -> [String?] {
        lines(output).map { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            if let base64 = object["pathBase64"] as? String, let bytes = Data(base64Encoded: base64) {
                return PathDisplay.text(Array(bytes))
            }
            return (object["path"] as? String).map { PathDisplay.text(Array($0.utf8)) }
        }
    }

    /// Calls `body(worker, index)` for every index below `count`, in
    /// order, on `workers` threads of their own, not on Swift's cooperative
    /// pool, whose threads other tests hold while they wait for their own
    /// processes; after a call throws, no other starts, and its error is
    /// thrown once the calls under way have ended.
    static func onThreadsOfTheirOwn(
        count: Int, workers: Int, _ body: @escaping @Sendable (_ worker: Int, _ index: Int) throws -> Void
    ) async throws {
        let lock = NSLock()
        nonisolated(unsafe) var next = 0
        nonisolated(unsafe) var failure: Error?
        let group = DispatchGroup()
        for worker in 0..<min(workers, count) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while true {
                    let index: Int? = lock.withLock {
                        defer { next += 1 }
                        return next < count && failure == nil ? next : nil
                    }
                    guard let index else { return }
                    do {
                        try body(worker, index)
                    } catch {
                        lock.withLock { failure = error }
                    }
                }
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                group.wait()
                continuation.resume()
            }
        }
        if let failure { throw failure }
    }

    /// Reads every file with `workers` at a time, in order (each runs our
    /// dump and unpack, then bsdtar); bsdtar runs niced, so that the files
    /// it spins on for the whole time limit take spare time rather than ours.
    static func listAll(_ files: [String], workers: Int) async throws -> [Result] {
        let wrapinspect = Disk.productsDirectory.appendingPathComponent("wrapinspect").path
        let scratch = try TemporaryDirectory()
        let directories = (0..<workers).map { scratch.appending("worker-\($0)") }
        for directory in directories {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        let lock = NSLock()
        nonisolated(unsafe) var results: [Result] = []
        try await onThreadsOfTheirOwn(count: files.count, workers: workers) { worker, index in
            let directory = directories[worker]
            let path = corpus.appendingPathComponent(files[index]).path
            let ours = try run([wrapinspect, "dump", path])
            let area = directory.appendingPathComponent("unpack")
            try FileManager.default.createDirectory(at: area, withIntermediateDirectories: true)
            let unpack = try run([wrapinspect, "unpack", path, area.appendingPathComponent("out").path])
            let left = try FileManager.default.contentsOfDirectory(atPath: area.path)
            try FileManager.default.removeItem(at: area)
            let bsdtar = comparesWithBsdtar
                ? try run(["/usr/bin/nice", "-n", "10", "/usr/bin/bsdtar", "-tf", path],
                          environment: ["LC_ALL": "C.UTF-8"], sanitized: false)
                : nil
            let storedListing = bsdtar.map { $0.status == 0 }
                ?? (trouble[files[index]] == nil && ours.error.contains("which this reader leaves out"))
            let likeBsdtar = storedListing
                ? try run([wrapinspect, "dump", "--stored", "--all-formats", "--json", path]) : nil
            let result = Result(file: files[index], ours: ours, unpack: unpack, leftInUnpackArea: left,
                                bsdtar: bsdtar, oursLikeBsdtar: likeBsdtar)
            lock.withLock { results.append(result) }
        }
        return results.sorted { $0.file < $1.file }
    }

    @Test func everyArchiveIsReadOrRefusedAndListedAsBsdtarListsIt() async throws {
        let enumerator = try #require(
            FileManager.default.enumerator(atPath: Self.corpus.path),
            "the corpus is missing at \(Self.corpus.path); it is part of the shared checkout")
        let files = enumerator.compactMap { $0 as? String }.filter {
            var isDirectory: ObjCBool = false
            return !$0.hasSuffix("README.md")
                && FileManager.default.fileExists(atPath: Self.corpus.appendingPathComponent($0).path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }.sorted { (Self.bsdtarSpins.contains($0) ? 0 : 1, $0) < (Self.bsdtarSpins.contains($1) ? 0 : 1, $1) }
        try #require(files.count == 488, "the corpus should hold 488 archives, found \(files.count)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/bsdtar"), "bsdtar is missing: apt-get install libarchive-tools")

        let started = Date()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let results = TestSizes.reduced
            ? try await Self.readAllInBatches(files, workers: 2 * cores)
            : try await Self.listAll(files, workers: Self.bsdtarSpins.count + 2 * cores)
        let seconds = Date().timeIntervalSince(started)
        try #require(results.count == files.count)

        var tally: [String: Int] = [:]
        for result in results {
            let (file, ours, bsdtar) = (result.file, result.ours, result.bsdtar)
            let path = Self.corpus.appendingPathComponent(file).path
            var outcomes = [("dump", ours), ("unpack", result.unpack)]
            if bsdtar == nil, let stored = result.oursLikeBsdtar { outcomes.append(("dump --stored", stored)) }
            for (command, outcome) in outcomes {
                #expect(!outcome.signaled && [0, 2].contains(outcome.status),
                        "\(file): \(command) ended with \(outcome.signaled ? "signal" : "status") \(outcome.status) (137: killed at the time limit; 14: read-each's alarm at the time limit)\n\(outcome.error)")
                if outcome.status == 2 {
                    let lines = outcome.error.split(separator: "\n").filter { !Self.isSanitizerAllocationWarning($0) }
                    #expect(lines.count == 1 && lines[0].hasPrefix((TestSizes.reduced ? "" : "wrapinspect: ") + path + ": "),
                            "\(file): \(command)'s error is not one line naming the file: \(outcome.error)")
                }
            }
            #expect(result.leftInUnpackArea == (result.unpack.status == 0 ? ["out"] : []),
                    "\(file): the unpack left \(result.leftInUnpackArea) after status \(result.unpack.status)")
            if let refusal = Self.trouble[file] {
                // dump takes what no format read recognises for a flat file; unpack refuses it.
                let unpack = result.unpack
                let prompt: Double = Self.sanitizer == nil ? 5 : 25
                #expect(unpack.status == 2 && unpack.error.contains(refusal) && unpack.seconds < prompt && ours.seconds < prompt,
                        "\(file): expected a prompt refusal saying \"\(refusal)\", got status \(unpack.status) after \(unpack.seconds) s: \(unpack.error)")
            }
            if let bsdtar {
                Self.compare(result, bsdtar, path: path)
            }
            let outcome = ours.status == 0 ? "read" : "refused"
            let comparison = bsdtar.map { $0.status == 0 ? "bsdtar lists it" : "bsdtar fails" } ?? "bsdtar not run"
            tally["\(outcome), \(comparison)", default: 0] += 1
        }
        print("corpus: \(files.count) files in \(String(format: "%.1f", seconds)) s:",
              tally.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: "; "))
    }

    /// Compares our stored listing of a corpus file with bsdtar's.
    static func compare(_ result: Result, _ bsdtar: Outcome, path: String) {
        let file = result.file
        if let exception = Self.refusedThoughBsdtarLists[file] {
            #expect(bsdtar.status == 0 && result.oursLikeBsdtar?.status == 2 && result.oursLikeBsdtar?.error.contains(exception) == true,
                    "\(file): expected bsdtar to list it and us to refuse it saying \"\(exception)\"")
        } else if let likeBsdtar = result.oursLikeBsdtar {
            #expect(likeBsdtar.status == 0, "\(file): bsdtar lists it, we refuse it: \(likeBsdtar.error)")
            #expect(Self.storedPaths(likeBsdtar.output) == Self.lines(bsdtar.output).map { Self.ourSpelling(ofBsdtarLine: $0, zip: Self.startsAsZip(path)) },
                    "\(file): the listings differ")
        }
    }
}
