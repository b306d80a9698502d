import Foundation
import Testing

/// Errors and bad usage: `wrapinspect: <description>` on standard error,
/// nothing on standard output, exit status 2.
@Suite("wrapinspect errors and usage")
struct ErrorTests {
    @Test func missingPathNamesThePath() throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(["dump", "Missing.journal"], in: journal.directory)
        #expect(result.exited)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "wrapinspect: Missing.journal: cannot read: fstatat(\"Missing.journal\") failed: No such file or directory (ENOENT)\n")
    }

    @Test(arguments: [
        (["dump", "--bogus", "Travel.journal"], "wrapinspect: Unknown option '--bogus'"),
        (["dump", "--max-depth", "-1", "Travel.journal"], "wrapinspect: --max-depth must be 0 or more, not -1."),
        (["frobnicate"], "wrapinspect: 'frobnicate' is not a wrapinspect command; the commands are dump, snapshot, digest, diff, verify, cat, pack, unpack, versions, help."),
    ])
    func badUsageExitsTwoWithUsage(arguments: [String], message: String) throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(arguments, in: journal.directory)
        #expect(result.exited)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first.map(String.init) == message)
        #expect(lines.contains { $0.hasPrefix("Usage: wrapinspect") })
    }

    @Test(arguments: [["--help"], ["dump", "--help"], ["help", "dump"]])
    func helpPrintsToStandardOutputAndExitsZero(arguments: [String]) throws {
        let journal = try SampleJournal()
        let result = try WrapInspectProcess.run(arguments, in: journal.directory)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout.contains("USAGE: wrapinspect"))
        #expect(result.stdout.contains("dump"))
    }
}
