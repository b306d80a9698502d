import Foundation
import Testing
import TestSupport

/// Issue 23, item 6: a progress line on a terminal for `pack` and for
/// reading standard input (and `unpack`), seen through a pseudo-terminal
/// (`script`), cleared at the end, never on a pipe or a file. The work is
/// held past the half second the line waits for by a slow reader or writer
/// at the other end of a pipe, not by its size.
@Suite struct ProgressTests {
    static func bench() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 6)
        try Disk.write(Data(random.bytes(1 << 20)), to: directory.appending("src/big.bin"))
        try Disk.write("small", to: directory.appending("src/small.txt"))
        let packed = try WrapInspectProcess.run(["pack", "src", "T.tar"], in: directory.url)
        try #require(packed.status == 0, "\(packed.stderr)")
        return directory
    }

    /// What a terminal showed while `command` ran in `sh` under `script`, `$W` naming wrapinspect.
    static func onTerminal(_ command: String, in directory: TemporaryDirectory) throws -> String {
        let executable = try #require(WrapInspectProcess.executableURL)
        let transcript = directory.appending(".terminal")
        let result = try ChildProcess.run("/usr/bin/script", ["-q", "-e", "-c", command, transcript.path], in: directory.url,
                                          environment: ["W": executable.path])
        let text = String(decoding: try Data(contentsOf: transcript), as: UTF8.self)
        #expect(result.status == 0, "\(text)")
        return text
    }

    /// Entries appear once one is written: the first file here waits on the pipe.
    @Test func packShowsEntriesBytesAndRateThenClearsTheLine() throws {
        let directory = try Self.bench()
        let text = try Self.onTerminal("\"$W\" pack --format tar src - | (sleep 1.5; cat > /dev/null)", in: directory)
        #expect(text.contains(#/\r\u{1B}\[Kpacking src: ([0-9]+ entr(y|ies), )?[0-9.]+ [KMG]?i?B, [0-9.]+ [KMG]?i?B/s/#), "\(text)")
        let last = try #require(text.range(of: "packing src:", options: .backwards))
        #expect(text[last.upperBound...].contains("\r\u{1B}[K"), "the line is cleared at the end")
    }

    @Test func neverOnAPipeOrAFile() throws {
        let directory = try Self.bench()
        let text = try Self.onTerminal("\"$W\" pack --format tar src - 2> errors.txt | (sleep 1.5; cat > /dev/null)", in: directory)
        #expect(!text.contains("packing"), "\(text)")
        #expect(try String(contentsOf: directory.appending("errors.txt"), encoding: .utf8) == "")
    }

    @Test func readingStandardInputShowsTheBytesThatCame() throws {
        let directory = try Self.bench()
        let text = try Self.onTerminal("(cat T.tar; sleep 1.5) | \"$W\" unpack - Out", in: directory)
        #expect(text.contains(#/\r\u{1B}\[Kreading standard input: [0-9.]+ [KMG]?i?B, /#), "\(text)")
        #expect(try Disk.names(in: directory.appending("Out")).sorted() == ["big.bin", "small.txt"])
    }
}
