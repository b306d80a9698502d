import Foundation
import Testing
import TestSupport

/// `wrapinspect unpack --keep-outside-links` (issue 22, item 3): a zoneinfo
/// tree made by GNU tar, with `localtime -> /etc/localtime` and
/// `a -> ../../x`, is refused with a message that names the flag, and
/// unpacked with it, the links made as links and counted.
@Suite("wrapinspect unpack --keep-outside-links")
struct OutsideLinkCommandTests {
    /// `zoneinfo.tar`, made by GNU tar in `directory`.
    static func zoneinfoArchive(in directory: TemporaryDirectory) throws -> URL {
        let source = directory.appending("zoneinfo")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("Europe"), withIntermediateDirectories: true)
        try Disk.write("TZif2 Paris\n", to: source.appendingPathComponent("Europe/Paris"))
        for (path, target) in [("localtime", "/etc/localtime"), ("a", "../../x"), ("CET", "Europe/Paris")] {
            try FileManager.default.createSymbolicLink(atPath: source.appendingPathComponent(path).path, withDestinationPath: target)
        }
        let made = try ChildProcess.run("/bin/sh", ["-c", "tar -C zoneinfo -cf zoneinfo.tar ."], in: directory.url)
        try #require(made.status == 0, "\(made.stderr)")
        return directory.appending("zoneinfo.tar")
    }

    @Test func refusedNamingTheFlag() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.zoneinfoArchive(in: directory)

        let result = try WrapInspectProcess.run(["unpack", "zoneinfo.tar", "out"], in: directory.url)

        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: zoneinfo.tar: \"./"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("(--keep-outside-links keeps such links, never following them during the unpack)\n"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("out").path))
    }

    @Test func keptAndCountedWithTheFlag() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.zoneinfoArchive(in: directory)

        let result = try WrapInspectProcess.run(["unpack", "--keep-outside-links", "zoneinfo.tar", "out"], in: directory.url)

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines == [
            "6 entries, 12 bytes unpacked into out",
            "2 links point outside the destination (kept as links, not followed)",
        ])
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: directory.appending("out/localtime").path)
        #expect(Array(target.utf8) == Array("/etc/localtime".utf8))
    }
}
