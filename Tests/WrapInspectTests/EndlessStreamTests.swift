import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 33, item 1: a zip or 7z on standard input that turns into zeros
/// without end (`(cat head.zip; cat /dev/zero) | wrapinspect dump -`, and
/// `diff -`) is refused within seconds, where it stops looking like the
/// format (SpoolShape), with exit 2 and a message naming standard input,
/// and leaves no spool; real zips whose members hold long runs of zeros
/// still read.
@Suite struct EndlessStreamTests {
    /// A folder with `T.zip` and `T.7z` of a small tree, `H.zip` (its first
    /// local header and data, cut there), `D.zip` (a local header of a
    /// deflated member whose sizes a data descriptor gives), and a private
    /// `$TMPDIR`.
    struct Bench {
        let directory: TemporaryDirectory
        var temporary: URL { directory.appending("tmp") }

        init(_ name: String = #function) throws {
            directory = try TemporaryDirectory(name)
            try Disk.write(String(repeating: "zip me ", count: 300), to: directory.appending("src/a.txt"))
            try Disk.write("two", to: directory.appending("src/sub/b.txt"))
            for ending in ["zip", "7z"] {
                let made = try WrapInspectProcess.run(["pack", "src", "T." + ending], in: directory.url)
                try #require(made.status == 0, "\(made.stderr)")
            }
            let zip = Array(try Data(contentsOf: directory.appending("T.zip")))
            let fields = { (at: Int) in Int(zip[at]) | Int(zip[at + 1]) << 8 }
            let headerAndData = 30 + fields(26) + fields(28) + (fields(18) | fields(20) << 16)
            try Data(zip[..<headerAndData]).write(to: directory.appending("H.zip"))
            // PK\3\4, version 20, flags bit 3, method 8, no time, CRC or sizes, a 1-byte name.
            let deflated: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 20, 0, 8, 0, 8, 0] + [UInt8](repeating: 0, count: 16) + [1, 0, 0, 0, 0x61]
            try Data(deflated).write(to: directory.appending("D.zip"))
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        }

        /// Runs wrapinspect with `arguments`, standard input a pipe that a
        /// thread fills with the file `head` and then zeros without end;
        /// killed after 60 s. (status, whether it ended by itself, standard error).
        func run(_ arguments: [String], fedWith head: String) throws -> (status: CInt, ended: Bool, stderr: String) {
            let executable = try #require(WrapInspectProcess.executableURL)
            let (reader, writer) = try PipeFeed.endless(after: try Data(contentsOf: directory.appending(head)))
            let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
            defer { close(null) }
            let errors = directory.appending("stderr")
            let errorFd = open(errors.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            defer { close(errorFd) }
            let pid = try ChildProcess.spawn(executable.path, arguments, in: directory.url, environment: ["TMPDIR": temporary.path],
                                             standardInput: reader, standardOutput: null, standardError: errorFd)
            close(reader)
            let (status, _, ended) = ChildProcess.wait(for: pid, killingAfter: 60)
            _ = writer.written()
            return (status, ended, (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
        }
    }

    /// A flat stream is hashed as it comes, as sha256sum hashes it, but no
    /// further than `--max-bytes` (it was hashed without end).
    @Test func aFlatStreamStopsAtTheContentsLimit() throws {
        let bench = try Bench()
        try Disk.write("not an archive\n", to: bench.directory.appending("F.txt"))
        let result = try bench.run(["dump", "--max-bytes", "1000000", "-"], fedWith: "F.txt")
        #expect(result.ended, "still hashing after 60 s")
        #expect(result.status == 2)
        #expect(result.stderr.contains("standard input: the stream holds more than 1000000 bytes (raise it with --max-bytes)"), "\(result.stderr)")
    }

    @Test(arguments: [
        (["dump", "-"], "T.zip", "16 MiB of zero bytes from offset "),
        (["dump", "-"], "H.zip", "16 MiB of zero bytes from offset "),
        (["dump", "-"], "T.7z", "after the end of the 7z"),
        (["dump", "-"], "D.zip", "64 KiB of zero bytes from offset 31, where a deflated member's data should begin"),
        (["digest", "-"], "H.zip", "where a zip's next record should begin"),
        (["diff", "-", "src"], "T.zip", "where a zip's next record should begin"),
        (["diff", "-", "src"], "T.7z", "after the end of the 7z"),
    ])
    func aZipOr7zThatTurnsIntoZerosIsRefusedWithinSeconds(arguments: [String], head: String, detail: String) throws {
        let bench = try Bench()
        let result = try bench.run(arguments, fedWith: head)
        #expect(result.ended, "\(arguments) \(head): still spooling after 60 s")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: standard input: the stream stopped looking like a zip or 7z: "), "\(result.stderr)")
        #expect(result.stderr.contains(detail), "\(result.stderr)")
        #expect(try Disk.names(in: bench.temporary) == [], "no spool left")
    }

    /// Zips whose members are long runs of zeros, stored and deflated,
    /// with their sizes in the local header (written to a file) or in
    /// data descriptors (written to a pipe): 20 MiB of stored zeros is
    /// more than the run of zeros that refuses a stream where a record is due.
    @Test(arguments: [true, false])
    func realZipsOfZerosStillRead(throughAPipe: Bool) throws {
        let bench = try Bench()
        let script = """
            import sys, zipfile
            class Unseekable:
                def __init__(self, file): self.file = file
                def write(self, data): return self.file.write(data)
                def flush(self): self.file.flush()
            with open(sys.argv[1], "wb") as raw:
                out = Unseekable(raw) if sys.argv[2] == "pipe" else raw
                with zipfile.ZipFile(out, "w") as z:
                    z.writestr(zipfile.ZipInfo("stored.bin"), bytes(20 << 20), compress_type=zipfile.ZIP_STORED)
                    z.writestr(zipfile.ZipInfo("deflated.bin"), bytes(64 << 20), compress_type=zipfile.ZIP_DEFLATED)
                    z.writestr(zipfile.ZipInfo("last.txt"), b"end", compress_type=zipfile.ZIP_STORED)
            """
        let zip = bench.directory.appending("Z.zip").path
        let made = try ChildProcess.run("/bin/sh", ["-c", "exec python3 -c \"$0\" \"$@\"", script, zip, throughAPipe ? "pipe" : "file"])
        try #require(made.status == 0, "\(made.stderr)")
        let file = try WrapInspectProcess.run(["dump", "--digests", "--max-bytes", "200000000", "Z.zip"], in: bench.directory.url)
        try #require(file.status == 0, "\(file.stderr)")
        let executable = try #require(WrapInspectProcess.executableURL)
        let piped = try ChildProcess.run("/bin/sh", ["-c", "cat Z.zip | \"$W\" dump --digests --max-bytes 200000000 -"], in: bench.directory.url,
                                         environment: ["W": executable.path, "TMPDIR": bench.temporary.path])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdoutLines.dropFirst() == file.stdoutLines.dropFirst())
        #expect(try Disk.names(in: bench.temporary) == [])
    }
}
