import Foundation
import Testing
import TestSupport

/// `wrapinspect unpack`, `dump`, `cat` and `digest` on a zip whose member
/// runs into the central directory (its CRC-32 forged to match) and on a
/// small overlapping zip bomb (``OverlappingZips``): each refuses it with
/// status 2 and an error naming the archive and the member, and leaves
/// nothing behind, in the destination or `$TMPDIR`. (The library's
/// readers: `ZipOverlapTests`.)
@Suite("wrapinspect on zips whose members overlap")
struct ZipOverlapCommandTests {
    @Test(arguments: [
        ("into-directory", "runs.txt", "the member runs into the central directory"),
        ("bomb-quoted", "member000.txt", #"the member overlaps member "member001.txt""#),
    ])
    func everyCommandRefusesIt(kind: String, member: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let temporary = directory.appending("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        let zip = "\(kind).zip"
        let generate = try ChildProcess.run("/usr/bin/env", ["python3", "-c", OverlappingZips.script, kind, zip], in: directory.url)
        try #require(generate.status == 0, "\(generate.stderr)")
        for arguments in [["unpack", zip, "out"], ["dump", zip], ["cat", zip, member], ["digest", zip]] {
            let result = try WrapInspectProcess.run(arguments, in: directory.url, environment: ["TMPDIR": temporary.path])
            #expect(result.status == 2 && result.stdout.isEmpty, "\(arguments): \(result.stdout)")
            #expect(result.stderr.hasPrefix("wrapinspect: \(zip): \"\(member)\": \(message)"), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appending("out").path))
        // ThreadSanitizer keeps its own `tsan.rodata.PID` file in `$TMPDIR`.
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { !$0.hasPrefix("tsan.") } == [])
    }
}
