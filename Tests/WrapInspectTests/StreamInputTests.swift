import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 23, item 2, and issue 25, item 4: `dump`, `digest`, `cat`,
/// `snapshot` and `unpack` read a pipe on standard input as it comes,
/// never copied (a zip or 7z through an unnamed spool), with what the file
/// itself gives; `pack SRC -` into `unpack -` and `dump -` round-trips.
@Suite struct StreamInputTests {
    /// A folder `src` (a file of several blocks, a small one in a folder,
    /// a symlink) packed as `T.<ending>` for each ending asked, and a
    /// `$TMPDIR` that does not exist: a copy of standard input would need
    /// one, a stream does not.
    struct Bench {
        let directory: TemporaryDirectory

        init(_ endings: [String], _ name: String = #function) throws {
            directory = try TemporaryDirectory(name)
            var random = SplitMix64(seed: 2325)
            try Disk.write(Data(random.bytes(300_000)), to: directory.appending("src/big.bin"))
            try Disk.write("one", to: directory.appending("src/sub/a.txt"))
            try FileManager.default.createSymbolicLink(atPath: directory.appending("src/link").path, withDestinationPath: "sub/a.txt")
            for ending in endings {
                let made = try WrapInspectProcess.run(["pack", "src", "T." + ending], in: directory.url)
                try #require(made.status == 0, "\(made.stderr)")
            }
        }

        /// Runs `script` with `sh -c`, `$W` naming wrapinspect and `$TMPDIR`
        /// a folder that does not exist (or `tmp`, one that does).
        func shell(_ script: String, writableTemporary: Bool = false) throws -> CommandResult {
            let executable = try #require(WrapInspectProcess.executableURL)
            let temporary = directory.appending(writableTemporary ? "tmp" : "missing").path
            if writableTemporary { try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true) }
            return try ChildProcess.run(
                "/bin/sh", ["-c", script], in: directory.url, environment: ["W": executable.path, "TMPDIR": temporary])
        }

        func run(_ arguments: [String]) throws -> CommandResult {
            let result = try WrapInspectProcess.run(arguments, in: directory.url)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
            return result
        }
    }

    /// What each command prints, given its input's name: snapshot's
    /// entries (its header names the source), the others' whole output.
    static let commands: [(arguments: @Sendable (String) -> [String], compared: @Sendable (CommandResult) -> [Substring])] = [
        ({ ["digest", "--metadata", $0] }, { [Substring($0.stdout)] }),
        ({ ["snapshot", $0] }, { $0.stdoutLines.filter { $0.hasPrefix("    {\"path\"") } }),
        ({ ["dump", "--digests", $0] }, { $0.stdoutLines.dropFirst().map { $0 } }),
        ({ ["dump", "--stored", "--digests", $0] }, { [Substring($0.stdout)] }),
        ({ ["cat", $0, "big.bin"] }, { [Substring($0.stdout)] }),
    ]

    /// A tar, plain or piped through `gzip -c` or `zstd -c`, streams: the
    /// same output as from the file, with no `$TMPDIR` (but for `cat`,
    /// which keeps the member it prints until the archive ends).
    @Test(arguments: ["cat T.tar", "gzip -c T.tar", "zstd -q -c T.tar", "cat T.cpio"])
    func aTarOrCpioStreamGivesWhatTheFileGives(producer: String) throws {
        let bench = try Bench(["tar", "cpio"])
        let file = producer.hasSuffix("cpio") ? "T.cpio" : "T.tar"
        for command in Self.commands {
            let expected = try bench.run(command.arguments(file))
            for name in ["-", "/dev/stdin"] {
                let script = "\(producer) | \"$W\" " + command.arguments(name).map { "'\($0)'" }.joined(separator: " ")
                let result = try bench.shell(script, writableTemporary: command.arguments(name)[0] == "cat")
                #expect(result.status == 0, "\(script): \(result.stderr)")
                let same = command.compared(result) == command.compared(expected)
                #expect(same, "\(script): \(result.stdout.prefix(300))")
            }
        }
    }

    /// A zip or 7z is read through a spool: the same output as from the
    /// file, and a clear error, naming standard input, where no spool can be made.
    @Test(arguments: ["zip", "7z"])
    func aZipOr7zStreamGoesThroughASpool(ending: String) throws {
        let bench = try Bench([ending])
        for command in Self.commands {
            let expected = try bench.run(command.arguments("T." + ending))
            let script = "cat T.\(ending) | \"$W\" " + command.arguments("-").map { "'\($0)'" }.joined(separator: " ")
            let result = try bench.shell(script, writableTemporary: true)
            #expect(result.status == 0, "\(script): \(result.stderr)")
            #expect(command.compared(result) == command.compared(expected), "\(script)")
        }
        #expect(try Disk.names(in: bench.directory.appending("tmp")) == [], "the spool has no name")
        let refused = try bench.shell("cat T.\(ending) | \"$W\" digest -")
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("wrapinspect: standard input: "), "\(refused.stderr)")
    }

    /// A stream that begins as a zip and goes on far past what a zip within
    /// the limits given can take (64 MiB of `yes`, for 1 MiB in 100
    /// entries; zeros would stop looking like a zip first, EndlessStreamTests) is
    /// refused naming the limit to raise, its spool gone: the same reader
    /// as the library's (SpoolLimitTests).
    @Test func aStreamLongerThanAZipWithinTheLimitsIsRefused() throws {
        let bench = try Bench([])
        let result = try bench.shell("{ printf 'PK\\003\\004'; yes | head -c 67108864; } | \"$W\" dump --max-bytes 1048576 --max-entries 100 -",
                                     writableTemporary: true)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: standard input: the stream is longer than "), "\(result.stderr)")
        #expect(result.stderr.contains("read it from a file instead (raise it with --max-bytes)"), "\(result.stderr)")
        #expect(try Disk.names(in: bench.directory.appending("tmp")) == [])
    }

    /// `diff` and `verify`, which copy a stream to read it more than once,
    /// stop copying once it is longer than any input within the limits
    /// given can be (64 MiB of zeros, for 1 MiB in 100 entries): refused
    /// naming the limit to raise, the copy gone.
    @Test(arguments: ["diff", "verify"])
    func aCopiedStreamLongerThanAnInputWithinTheLimitsIsRefused(command: String) throws {
        let bench = try Bench([])
        let other = command == "diff" ? " src" : ""
        let result = try bench.shell("head -c 67108864 /dev/zero | \"$W\" \(command) --max-bytes 1048576 --max-entries 100 -\(other)",
                                     writableTemporary: true)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: standard input: the stream is longer than "), "\(result.stderr)")
        #expect(result.stderr.contains("name a file instead (raise it with --max-bytes)"), "\(result.stderr)")
        #expect(try Disk.names(in: bench.directory.appending("tmp")) == [])
    }

    /// `pack SRC -` into `unpack - DEST` and into `dump -`, every format
    /// pack writes by name here, with the file's results.
    @Test(arguments: ["tar", "tar.zst", "tar.gz", "cpio", "zip", "7z"])
    func packIntoUnpackAndDumpThroughAPipe(format: String) throws {
        let bench = try Bench([])
        let expected = try bench.run(["digest", "--metadata", "src"])
        let unpacked = try bench.shell("\"$W\" pack --format \(format) src - | \"$W\" unpack - Out", writableTemporary: true)
        #expect(unpacked.status == 0, "\(unpacked.stderr)")
        #expect(unpacked.stdout.contains(" entries, 300003 bytes unpacked into Out\n"), "\(unpacked.stdout)")
        #expect(try bench.run(["digest", "Out"]).stdoutLines.first == expected.stdoutLines.first)

        _ = try bench.run(["pack", "--format", format, "src", "T.\(format)"])
        let dumped = try bench.shell("\"$W\" pack --format \(format) src - | \"$W\" dump -", writableTemporary: true)
        #expect(dumped.status == 0, "\(dumped.stderr)")
        #expect(dumped.stdoutLines.dropFirst() == (try bench.run(["dump", "T.\(format)"])).stdoutLines.dropFirst())
    }

    /// What no format reads is read whole, as a flat file, and a
    /// manifest file as a manifest.
    @Test func aFlatFileOrAManifestStreams() throws {
        let bench = try Bench([])
        try Disk.write("not an archive, only text", to: bench.directory.appending("flat.txt"))
        _ = try bench.run(["snapshot", "src", "-o", "src.json"])
        for (file, command) in [("flat.txt", "digest"), ("src.json", "digest"), ("flat.txt", "cat")] {
            let arguments = command == "cat" ? [command, file, "."] : [command, file]
            let expected = try bench.run(arguments)
            let piped = (command == "cat" ? [command, "-", "."] : [command, "-"]).joined(separator: " ")
            let result = try bench.shell("cat \(file) | \"$W\" \(piped)")
            if command == "cat" {
                #expect(result.status == 2, "a stream that is no archive has no members")
            } else {
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout == expected.stdout)
            }
        }
    }

    /// GNU tar stores a second name of a file as a hard link after it:
    /// from a stream, `cat` gives the first name's bytes, and names the
    /// link it cannot read; SVR4 cpio, which stores the bytes with the last
    /// name, gives them for every name.
    @Test func hardLinksFromAStream() throws {
        let bench = try Bench([])
        try Disk.write("linked bytes", to: bench.directory.appending("h/a.txt"))
        try #require(link(bench.directory.appending("h/a.txt").path, bench.directory.appending("h/b.txt").path) == 0)
        let made = try bench.shell("tar -C h -cf links.tar a.txt b.txt && (cd h && printf 'a.txt\\nb.txt\\n' | cpio -o -H newc --quiet > ../links.cpio)",
                                   writableTemporary: true)
        try #require(made.status == 0, "\(made.stderr)")
        let first = try bench.shell("cat links.tar | \"$W\" cat - a.txt", writableTemporary: true)
        #expect(first.status == 0 && first.stdout == "linked bytes", "\(first.stderr)")
        let link = try bench.shell("cat links.tar | \"$W\" cat - b.txt", writableTemporary: true)
        #expect(link.status == 2)
        #expect(link.stderr.contains("b.txt") && link.stderr.contains("read the archive from a file"), "\(link.stderr)")
        for name in ["a.txt", "b.txt"] {
            let cpio = try bench.shell("cat links.cpio | \"$W\" cat - \(name)", writableTemporary: true)
            #expect(cpio.status == 0 && cpio.stdout == "linked bytes", "\(name): \(cpio.stderr)")
        }
    }

    /// A tar of a few hundred MiB read through a pipe: the reader's peak
    /// resident memory stays far under the archive's size (27 MiB for 384
    /// MiB when measured; a reduced run reads 128 MiB and allows 96 MiB for
    /// a sanitizer's shadow memory and quarantine: 55 MiB under ASan).
    @Test func memoryStaysFlatReadingATarFromAPipe() throws {
        let bench = try Bench([])
        let executable = try #require(WrapInspectProcess.executableURL)
        let size = TestSizes.pick(full: 256 << 20, reduced: 128 << 20)
        let script = """
            import os, random, subprocess, sys, tarfile
            size = int(sys.argv[2])
            child = subprocess.Popen([sys.argv[1], "digest", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            rng = random.Random(23)
            class Bytes:
                def __init__(self, count): self.left = count
                def read(self, count=-1):
                    count = self.left if count < 0 else min(count, self.left)
                    self.left -= count
                    return rng.randbytes(count)
            with tarfile.open(fileobj=child.stdin, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                for index in range(4):
                    info = tarfile.TarInfo(f"part-{index}.bin")
                    info.size = size // 4
                    tar.addfile(info, Bytes(info.size))
            child.stdin.close()
            output = child.stdout.read().decode()
            _, status, usage = os.wait4(child.pid, 0)
            print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, output.strip())
            """
        let result = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, executable.path, String(size)], in: bench.directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        let fields = result.stdout.split(separator: " ")
        try #require(fields.count == 3, "\(result.stdout)")
        #expect(fields[0] == "0", "\(result.stdout)")
        #expect(fields[2].hasPrefix("fwk-tree-v1:"), "\(result.stdout)")
        let peak = try #require(Int(fields[1])) * 1024
        let bound = TestSizes.pick(full: 64 << 20, reduced: 96 << 20)
        #expect(peak < bound, "peak \(peak >> 20) MiB reading \(size >> 20) MiB")
    }
}
