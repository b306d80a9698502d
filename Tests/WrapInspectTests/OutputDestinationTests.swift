import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 23, item 2: `pack` and `snapshot -o` write where the path means:
/// `-` is standard output, a device, FIFO or socket is a stream, a symbolic
/// link is kept and what it points at replaced, a terminal is refused for
/// an archive.
@Suite struct OutputDestinationTests {
    /// A folder `src` with two files, and the bytes of its reproducible tar.
    struct Packed {
        let directory: TemporaryDirectory
        let archive: [UInt8]

        init(_ name: String = #function) throws {
            directory = try TemporaryDirectory(name)
            try Disk.write("one", to: directory.appending("src/a.txt"))
            var random = SplitMix64(seed: 23)
            try Disk.write(Data(random.bytes(100_000)), to: directory.appending("src/b.bin"))
            let made = try WrapInspectProcess.run(["pack", "--reproducible", "src", "expected.tar"], in: directory.url)
            try #require(made.status == 0, "\(made.stderr)")
            archive = Array(try Data(contentsOf: directory.appending("expected.tar")))
        }

        /// Runs `script` with `sh -c` in the directory, `$W` naming the built wrapinspect.
        func shell(_ script: String) throws -> CommandResult {
            let executable = try #require(WrapInspectProcess.executableURL)
            return try ChildProcess.run("/bin/sh", ["-c", script], in: directory.url, environment: ["W": executable.path])
        }

        func bytes(_ name: String) throws -> [UInt8] {
            Array(try Data(contentsOf: directory.appending(name)))
        }
    }

    static func kind(_ url: URL) -> mode_t {
        var status = stat()
        lstat(url.path, &status)
        return status.st_mode & S_IFMT
    }

    @Test(arguments: ["-", "/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"])
    func standardOutputIntoAPipeGetsTheArchive(destination: String) throws {
        let packed = try Packed()
        let before = Self.kind(URL(fileURLWithPath: "/dev/stdout"))
        let result = try packed.shell("\"$W\" pack --reproducible --format tar src \(destination) | cat > got.tar")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try packed.bytes("got.tar") == packed.archive)
        #expect(try Disk.names(in: packed.directory.url).sorted() == ["expected.tar", "got.tar", "src"], "no file named -")
        #expect(Self.kind(URL(fileURLWithPath: "/dev/stdout")) == before, "/dev/stdout is as it was")
    }

    /// `/dev/stdout` redirected to a file means that file, at the shell's offset.
    @Test func standardOutputRedirectedToAFileAppends() throws {
        let packed = try Packed()
        try Disk.write("head\n", to: packed.directory.appending("log"))
        let result = try packed.shell("\"$W\" pack --reproducible --format tar src /dev/stdout >> log")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try packed.bytes("log") == Array("head\n".utf8) + packed.archive)
    }

    @Test func aSymbolicLinkIsKeptAndItsTargetReplaced() throws {
        let packed = try Packed()
        try FileManager.default.createDirectory(at: packed.directory.appending("store"), withIntermediateDirectories: false)
        try Disk.write("old archive", to: packed.directory.appending("store/real.tar"))
        try FileManager.default.createSymbolicLink(atPath: packed.directory.appending("link.tar").path, withDestinationPath: "store/real.tar")
        try FileManager.default.createSymbolicLink(atPath: packed.directory.appending("dangling.tar").path, withDestinationPath: "store/new.tar")

        for link in ["link.tar", "dangling.tar"] {
            let result = try WrapInspectProcess.run(["pack", "--reproducible", "src", link], in: packed.directory.url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.kind(packed.directory.appending(link)) == S_IFLNK, "\(link) is still a symbolic link")
        }
        #expect(try packed.bytes("store/real.tar") == packed.archive)
        #expect(try packed.bytes("store/new.tar") == packed.archive)
        #expect(try Disk.names(in: packed.directory.appending("store")).sorted() == ["new.tar", "real.tar"], "no temporary left")
    }

    @Test func aSymbolicLinkToAFolderIsRefusedNamingBoth() throws {
        let packed = try Packed()
        try FileManager.default.createSymbolicLink(atPath: packed.directory.appending("link.tar").path, withDestinationPath: "src")
        let result = try WrapInspectProcess.run(["pack", "src", "link.tar"], in: packed.directory.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: link.tar (a symbolic link to "), "\(result.stderr)")
        #expect(result.stderr.contains("/src) is a directory"), "\(result.stderr)")
        #expect(Self.kind(packed.directory.appending("link.tar")) == S_IFLNK)
    }

    @Test func aFIFOIsWrittenAsAStream() throws {
        let packed = try Packed()
        let result = try packed.shell("mkfifo fifo && { cat fifo > got.tar & } && \"$W\" pack --reproducible --format tar src fifo && wait")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try packed.bytes("got.tar") == packed.archive)
        #expect(Self.kind(packed.directory.appending("fifo")) == S_IFIFO)
        #expect(try Disk.names(in: packed.directory.url).sorted() == ["expected.tar", "fifo", "got.tar", "src"], "no temporary beside it")
    }

    @Test func aUnixSocketIsConnectedToAndWrittenAsAStream() throws {
        let packed = try Packed()
        let executable = try #require(WrapInspectProcess.executableURL)
        let server = """
            import socket, subprocess, sys
            s = socket.socket(socket.AF_UNIX); s.bind("sock"); s.listen(1)
            p = subprocess.Popen([sys.argv[1], "pack", "--reproducible", "--format", "tar", "src", "sock"])
            c, _ = s.accept(); data = b""
            while chunk := c.recv(65536): data += chunk
            open("got.tar", "wb").write(data); sys.exit(p.wait())
            """
        let result = try ChildProcess.run("/usr/bin/env", ["python3", "-c", server, executable.path], in: packed.directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try packed.bytes("got.tar") == packed.archive)
    }

    @Test func aCharacterDeviceIsWrittenNotReplaced() throws {
        let packed = try Packed()
        try FileManager.default.createSymbolicLink(atPath: packed.directory.appending("null.tar").path, withDestinationPath: "/dev/null")
        for destination in ["/dev/null", "null.tar"] {
            let result = try WrapInspectProcess.run(["pack", "--format", "tar", "src", destination], in: packed.directory.url)
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(Self.kind(URL(fileURLWithPath: "/dev/null")) == S_IFCHR)
        #expect(Self.kind(packed.directory.appending("null.tar")) == S_IFLNK)
    }

    @Test func aTerminalIsRefusedForAnArchive() throws {
        let packed = try Packed()
        let executable = try #require(WrapInspectProcess.executableURL)
        let transcript = packed.directory.appending("transcript")
        let result = try ChildProcess.run(
            "/usr/bin/script", ["-q", "-e", "-c", "\(executable.path) pack --format tar src -", transcript.path], in: packed.directory.url)
        let text = String(decoding: try Data(contentsOf: transcript), as: UTF8.self)
        #expect(result.status == 2, "\(text)")
        #expect(text.contains("wrapinspect: standard output is a terminal"), "\(text)")
        #expect(!text.contains("a.txt"), "no archive bytes on the terminal")
    }

    @Test func snapshotThroughASymbolicLinkReplacesItsTargetAtomically() throws {
        let packed = try Packed()
        try Disk.write("old", to: packed.directory.appending("real.json"))
        let oldInode = Disk.inode(packed.directory.appending("real.json"))
        try FileManager.default.createSymbolicLink(atPath: packed.directory.appending("link.json").path, withDestinationPath: "real.json")

        let result = try WrapInspectProcess.run(["snapshot", "src", "-o", "link.json"], in: packed.directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.kind(packed.directory.appending("link.json")) == S_IFLNK)
        #expect(Disk.inode(packed.directory.appending("real.json")) != oldInode, "renamed into place, not rewritten in place")
        #expect(try String(contentsOf: packed.directory.appending("real.json"), encoding: .utf8).contains("b.bin"))
    }

    @Test func snapshotToDashIsStandardOutput() throws {
        let packed = try Packed()
        let result = try WrapInspectProcess.run(["snapshot", "src", "-o", "-"], in: packed.directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("b.bin"))
        #expect(!FileManager.default.fileExists(atPath: packed.directory.appending("-").path))
    }
}

/// Issue 23, item 5: an archive packed into the folder it packs never
/// contains itself, its temporary or the archive it replaces.
@Suite struct PackIntoItselfTests {
    @Test(arguments: ["backup.zip", "sub/backup.tar.gz"])
    func anArchiveInsideItsSourceLeavesItselfOut(archive: String) throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("J")
        try Disk.write("one", to: journal.appendingPathComponent("a.txt"))
        try Disk.write("two", to: journal.appendingPathComponent("sub/b.txt"))

        var runs: [[UInt8]] = []
        for _ in 0..<2 {
            // Writing into sub/ changes its time: SOURCE_DATE_EPOCH clamps it, as for any build.
            let result = try BuiltProgram.run(
                "wrapinspect", ["pack", "--reproducible", ".", archive], in: journal, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr == "wrapinspect: \(archive) is inside .: the archive is left out of itself\n")
            runs.append(Array(try Data(contentsOf: journal.appendingPathComponent(archive))))
        }
        #expect(runs[0] == runs[1], "two reproducible runs give the same bytes")
        let listed = try WrapInspectProcess.run(["dump", "--stored", archive], in: journal)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(!listed.stdout.contains("backup"), "\(listed.stdout)")
        #expect(listed.stdout.contains("sub/b.txt"), "\(listed.stdout)")
    }

    /// The archive left out of itself must not leave SOURCE out of itself.
    @Test(arguments: ["x.zip", "link.zip"])
    func anArchiveIsNeverWrittenOverItsSource(archive: String) throws {
        let directory = try TemporaryDirectory()
        try Disk.write("one", to: directory.appending("J/a.txt"))
        let packed = try WrapInspectProcess.run(["pack", "J", "x.zip"], in: directory.url)
        try #require(packed.status == 0, "\(packed.stderr)")
        try FileManager.default.createSymbolicLink(atPath: directory.appending("link.zip").path, withDestinationPath: "x.zip")
        let before = try Data(contentsOf: directory.appending("x.zip"))

        let result = try WrapInspectProcess.run(["pack", "x.zip", archive], in: directory.url)
        #expect(result.status == 2)
        #expect(result.stderr == "wrapinspect: \(archive) is x.zip itself; an archive is written beside what it packs\n")
        #expect(try Data(contentsOf: directory.appending("x.zip")) == before)
    }

    @Test func anArchiveBesideItsSourceGetsNoWarning() throws {
        let directory = try TemporaryDirectory()
        try Disk.write("one", to: directory.appending("J/a.txt"))
        let result = try WrapInspectProcess.run(["pack", "J", "J.zip"], in: directory.url)
        #expect(result.status == 0)
        #expect(result.stderr == "")
    }
}

/// Issue 23, item 2, reading: `-` and `/dev/stdin` are standard input for
/// `dump`, `digest`, `cat`, `snapshot` and `unpack`, a pipe or a
/// redirected file alike, with what the file itself gives; the copy of a
/// pipe is gone at the end.
@Suite struct StandardInputTests {
    struct Bench {
        let directory: TemporaryDirectory

        init(_ name: String = #function) throws {
            directory = try TemporaryDirectory(name)
            var random = SplitMix64(seed: 99)
            try Disk.write(Data(random.bytes(200_000)), to: directory.appending("src/big.bin"))
            try Disk.write("one", to: directory.appending("src/sub/a.txt"))
            try FileManager.default.createDirectory(at: directory.appending("tmp"), withIntermediateDirectories: false)
            for archive in ["T.zip", "T.tar.zst"] {
                let made = try WrapInspectProcess.run(["pack", "src", archive], in: directory.url)
                try #require(made.status == 0, "\(made.stderr)")
            }
        }

        /// Runs `script` with `sh -c`, `$W` naming wrapinspect, `$TMPDIR` private.
        func shell(_ script: String) throws -> CommandResult {
            let executable = try #require(WrapInspectProcess.executableURL)
            return try ChildProcess.run("/bin/sh", ["-c", script], in: directory.url,
                                        environment: ["W": executable.path, "TMPDIR": directory.appending("tmp").path])
        }
    }

    @Test(arguments: ["T.zip", "T.tar.zst"], ["-", "/dev/stdin"])
    func standardInputGivesWhatTheFileGives(archive: String, name: String) throws {
        let bench = try Bench()
        // snapshot's entries (its header names the source), and the others' whole output.
        func output(_ result: CommandResult, of command: String) -> [Substring] {
            command == "snapshot" ? result.stdoutLines.filter { $0.hasPrefix("    {\"path\"") } : [Substring(result.stdout)]
        }
        for command in [["digest", "--metadata"], ["snapshot"], ["dump", "--stored", "--digests"], ["cat", "%", "big.bin"]] {
            let direct = command.map { $0 == "%" ? archive : $0 } + (command[0] == "cat" ? [] : [archive])
            let expected = try WrapInspectProcess.run(direct, in: bench.directory.url)
            try #require(expected.status == 0, "\(expected.stderr)")
            let piped = command.map { $0 == "%" ? name : $0 } + (command[0] == "cat" ? [] : [name])
            let arguments = piped.map { "'\($0)'" }.joined(separator: " ")
            for script in ["cat \(archive) | \"$W\" \(arguments)", "\"$W\" \(arguments) < \(archive)"] {
                let result = try bench.shell(script)
                #expect(result.status == 0, "\(script): \(result.stderr)")
                if command[0] == "cat" {
                    // Compared first, so that a failure reports a count, not 200,000 bytes.
                    let same = result.stdoutBytes == expected.stdoutBytes
                    #expect(same, "\(script): \(result.stdoutBytes.count) bytes, not the member's \(expected.stdoutBytes.count)")
                } else {
                    #expect(output(result, of: command[0]) == output(expected, of: command[0]), "\(script)")
                }
            }
        }
        #expect(try Disk.names(in: bench.directory.appending("tmp")) == [], "the copy of the pipe is removed")
    }

    @Test func unpackReadsStandardInputAndNeedsADestination() throws {
        let bench = try Bench()
        let result = try bench.shell("cat T.tar.zst | \"$W\" unpack - Out")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Disk.names(in: bench.directory.appending("Out")).sorted() == ["big.bin", "sub"])
        #expect(try Disk.names(in: bench.directory.appending("tmp")) == [])

        let unnamed = try bench.shell("cat T.tar.zst | \"$W\" unpack -")
        #expect(unnamed.status == 2)
        #expect(unnamed.stderr.hasPrefix("wrapinspect: Cannot name a folder after \"-\"; give DESTINATION."), "\(unnamed.stderr)")
    }

    @Test func aPipeThatIsNotAnArchiveIsNamedStandardInput() throws {
        let bench = try Bench()
        let result = try bench.shell("printf 'not an archive' | \"$W\" dump --stored -")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: -: not an archive"), "\(result.stderr)")
        #expect(try Disk.names(in: bench.directory.appending("tmp")) == [])
    }
}
