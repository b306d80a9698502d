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
        // Without the total, or with it once the walk beside the pack has counted.
        #expect(text.contains(#/\r\u{1B}\[Kpacking src: ([0-9]+ (of [0-9]+ )?entr(y|ies), )?[0-9.]+ [KMG]?i?B( of [0-9.]+ [KMG]?i?B)?, [0-9.]+ [KMG]?i?B/s/#), "\(text)")
        let last = try #require(text.range(of: "packing src:", options: .backwards))
        #expect(text[last.upperBound...].contains("\r\u{1B}[K"), "the line is cleared at the end")
    }

    /// The folder is walked first, beside the pack: the line shows how far
    /// out of what, and the time left at the rate so far. The reader takes
    /// 64 KiB every 0.1 s, so that bytes are counted while the line shows.
    @Test func packShowsTotalsAndTimeLeft() throws {
        let directory = try Self.bench()
        let slowReader = "while [ \"$(head -c 65536 | wc -c)\" -gt 0 ]; do sleep 0.1; done"
        let text = try Self.onTerminal("\"$W\" pack --format tar src - | (\(slowReader))", in: directory)
        #expect(text.contains(#/\r\u{1B}\[Kpacking src: [0-9] of 2 entries, [0-9.]+ [KM]?i?B of 1\.0 MiB, [0-9.]+ [KMG]?i?B/s, [0-9]+ s left/#), "\(text)")
        let last = try #require(text.range(of: "packing src:", options: .backwards))
        #expect(text[last.upperBound...].contains("\r\u{1B}[K"), "the line is cleared at the end")
    }

    /// verify's line names the form that runs, out of how many, and is
    /// erased before each row is printed, so that no row lands on it.
    @Test func verifyShowsTheFormThatRuns() throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 7)
        // 1.5 MiB of random bytes, over which xz and 7-Zip's LZMA take a second or more.
        try Disk.write(Data(random.bytes(3 << 19)), to: directory.appending("src/random.bin"))
        let text = try Self.onTerminal("\"$W\" verify --via tar.xz,7z src", in: directory)
        #expect(text.contains(#/\r\u{1B}\[Kverifying src: (reading, [0-9]+ s so far|(tar\.xz|7z), form [12] of 2, [0-9]+ s so far)/#), "\(text)")
        // Every row starts a line of its own: after a newline, or after the erasing of the progress line.
        for row in ["tar.xz  kept", "7z      kept"] {
            let range = try #require(text.range(of: row), "\(text)")
            let before = text[..<range.lowerBound]
            #expect(before.hasSuffix("\n") || before.hasSuffix("\r\u{1B}[K") || before.isEmpty, "\(text)")
        }
        let last = try #require(text.range(of: "verifying src:", options: .backwards))
        #expect(text[last.upperBound...].contains("\r\u{1B}[K"), "the line is cleared at the end")
    }

    /// On a terminal 64 columns wide the line takes 63 at most, wide
    /// characters counted as two (as Python's `unicodedata` says): a long
    /// name is shortened in its middle, so that the counts stay in sight,
    /// the rate too however slow the run (a rate of `170.3 KiB/s` under a
    /// sanitizer once pushed it out).
    @Test(arguments: ["a-folder-whose-name-is-far-too-long-for-the-line-" + String(repeating: "x", count: 40),
                      String(repeating: "とても長い名前のフォルダ", count: 5)])
    func theLineFitsTheTerminal(name: String) throws {
        let lines = try Self.linesPacking(name, columns: 64)
        for line in lines {
            #expect(line.contains("…") && line.contains("/s"), "\(line)")
        }
    }

    /// On 40 columns the counts give way, least telling first, and the
    /// bytes done of the total stay whole at the end of the line.
    @Test func onANarrowTerminalTheBytesStay() throws {
        let lines = try Self.linesPacking(String(repeating: "とても長い名前のフォルダ", count: 5), columns: 40)
        for line in lines {
            #expect(line.contains(#/….*: [0-9.]+ [KM]?i?B of 1\.0 MiB(, [0-9.]+ [KMG]?i?B/s)?$/#), "\(line)")
        }
    }

    /// The progress lines drawn while `pack` of a folder called `name` ran
    /// on a terminal `columns` wide, each checked to fit in one column less.
    static func linesPacking(_ name: String, columns: Int) throws -> [Substring] {
        let directory = try Self.bench()
        try FileManager.default.moveItem(at: directory.appending("src"), to: directory.appending(name))
        let text = try Self.onTerminal("stty cols \(columns) && \"$W\" pack --format tar \(name) - | (sleep 1.5; cat > /dev/null)", in: directory)
        let lines = text.components(separatedBy: "\r\u{1B}[K").map { $0.prefix { $0 != "\r" && $0 != "\n" } }.filter { $0.hasPrefix("packing") }
        #expect(!lines.isEmpty, "\(text)")
        let widths = try ChildProcess.run("/usr/bin/python3", ["-c", """
            import sys, unicodedata
            for line in sys.argv[1:]: print(sum(2 if unicodedata.east_asian_width(c) in 'WF' else 1 for c in line))
            """] + lines.map(String.init), environment: ["PYTHONIOENCODING": "utf-8"]).stdout
        #expect(widths.split(separator: "\n").allSatisfy { Int($0).map { $0 < columns } ?? false }, "\(widths)")
        return lines
    }

    @Test func neverOnAPipeOrAFile() throws {
        let directory = try Self.bench()
        let text = try Self.onTerminal("\"$W\" pack --format tar src - 2> errors.txt | (sleep 1.5; cat > /dev/null)", in: directory)
        #expect(!text.contains("packing"), "\(text)")
        #expect(try String(contentsOf: directory.appending("errors.txt"), encoding: .utf8) == "")
    }

    /// A pipe is unpacked as it comes: the line counts what is unpacked so far.
    @Test func unpackingStandardInputShowsWhatCame() throws {
        let directory = try Self.bench()
        // Held in the middle of big.bin, so that the unpack waits for the rest.
        let text = try Self.onTerminal("(head -c 600000 T.tar; sleep 1.5; tail -c +600001 T.tar) | \"$W\" unpack - Out", in: directory)
        #expect(text.contains(#/\r\u{1B}\[Kunpacking -: ([0-9]+ entr(y|ies), )?[0-9.]+ [KMG]?i?B, /#), "\(text)")
        #expect(try Disk.names(in: directory.appending("Out")).sorted() == ["big.bin", "small.txt"])
    }
}
