import Foundation
import Testing
import TestSupport

/// Where the kernel has no `openat2` (before Linux 5.6, or a seccomp
/// profile that leaves it out), the unpacker opens directories one name at
/// a time with `O_NOFOLLOW` instead. Run under `fwk-no-openat2`, whose
/// seccomp filter makes `openat2` fail with ENOSYS, `wrapinspect unpack`
/// must make the same trees and refuse the same archives, with the same
/// messages, as it does with `openat2`.
@Suite(.startsProcesses) struct OpenBeneathFallbackTests {
    typealias Fixture = HostileFixtureTests.Fixture

    /// The hostile fixtures that no limit stops (the bombs prove nothing here and take long).
    static let fixtures = HostileFixtureTests.fixtures.filter { $0.limit == nil }

    /// Unpacks `archive` into `name` in `directory`, with or without `openat2`.
    /// (Directories made only as parents keep the time they were made, so
    /// directory times are left out of the comparisons.)
    static func unpack(_ archive: URL, into name: String, in directory: TemporaryDirectory, withOpenat2: Bool) throws -> CommandResult {
        let wrapinspect = try #require(BuiltProgram.url(of: "wrapinspect")).path
        let arguments = [wrapinspect, "unpack", archive.path, directory.appending(name).path]
        return withOpenat2
            ? try BuiltProgram.run("wrapinspect", Array(arguments.dropFirst()), in: directory.url)
            : try BuiltProgram.run("fwk-no-openat2", arguments, in: directory.url)
    }

    @Test(arguments: fixtures)
    func theFallbackUnpacksAndRefusesAlike(fixture: Fixture) throws {
        let directory = try TemporaryDirectory()
        let archive = UnpackTests.fixtureURL(fixture)
        let with = try Self.unpack(archive, into: "with", in: directory, withOpenat2: true)
        let without = try Self.unpack(archive, into: "without", in: directory, withOpenat2: false)

        #expect(without.status == with.status)
        #expect(without.stderr.replacing("/without", with: "/with") == with.stderr)
        if with.status == 0 {
            #expect(try DiskTree(directory.appending("without"), directoryTimes: false) == DiskTree(directory.appending("with"), directoryTimes: false))
        }
    }

    @Test(arguments: ["escape.tar", "chmod.tar", "escape.zip", "chmod.zip"])
    func theFallbackPlacesCanonicalEquivalentsAlike(name: String) throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending(name)
        let members = name.hasPrefix("escape") ? CanonicalNameAttackTests.escapingLink : CanonicalNameAttackTests.chmodOutside
        try CanonicalNameAttackTests.write(members, to: archive)
        let with = try Self.unpack(archive, into: "with", in: directory, withOpenat2: true)
        let without = try Self.unpack(archive, into: "without", in: directory, withOpenat2: false)

        #expect(with.status == 0 && without.status == 0, "\(with.stderr)\(without.stderr)")
        #expect(try DiskTree(directory.appending("without"), directoryTimes: false) == DiskTree(directory.appending("with"), directoryTimes: false))
    }

    /// The filter works: under it, `openat2` is tried once, fails with
    /// ENOSYS, and directories below the destination are still opened.
    @Test func underTheFilterOpenat2FailsAndDirectoriesAreOpenedByName() throws {
        let directory = try TemporaryDirectory()
        let archive = directory.appending("deep.tar")
        try CanonicalNameAttackTests.write([
            .init(name: "a/", kind: "dir"), .init(name: "a/b/", kind: "dir"), .init(name: "a/b/c", kind: "file", content: "x"),
            .init(name: "d/e/f", kind: "file", content: "y"), .init(name: "a/b/g", kind: "file", content: "z"),
        ], to: archive)
        let wrapinspect = try #require(BuiltProgram.url(of: "wrapinspect")).path
        let noOpenat2 = try #require(BuiltProgram.url(of: "fwk-no-openat2")).path
        let trace = directory.appending("trace.txt").path
        let sanitizerOptions = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let result = try Disk.run("/usr/bin/env", [
            "ASAN_OPTIONS=\(sanitizerOptions)detect_leaks=0", "strace", "-f", "-qq", "-e", "trace=openat2", "-o", trace,
            noOpenat2, wrapinspect, "unpack", archive.path, directory.appending("out").path,
        ])
        try #require(result.status == 0, "\(result.stderr)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("openat2(") }
        #expect(!calls.isEmpty && calls.allSatisfy { $0.contains("ENOSYS") }, "\(calls)")
        #expect(try String(contentsOf: directory.appending("out/a/b/g"), encoding: .utf8) == "z")
        #expect(try String(contentsOf: directory.appending("out/d/e/f"), encoding: .utf8) == "y")
    }
}
