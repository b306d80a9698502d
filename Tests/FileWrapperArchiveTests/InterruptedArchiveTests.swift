import FileWrapperArchive
import Foundation
import Testing
import TestSupport

/// Pack and unpack killed (SIGKILL) at random instants, in a child process,
/// at least 50 times mid-pack and 40 mid-unpack (4 in a reduced run,
/// ``KillHarness/kills(full:)``): the archive or the unpacked tree
/// is the old version or the new one, whole (an unpack into a fresh
/// destination leaves nothing or the whole tree); nothing beside it
/// changes; what a killed run left, the next run removes.
@Suite(.startsProcesses) struct InterruptedArchiveTests {
    static let packKills = KillHarness.kills(full: 50)
    static let unpackKills = KillHarness.kills(full: 40)

    /// Each version's package: `files` files of 10 kB.
    static func writeVersions(files: Int, in directory: TemporaryDirectory) throws -> [String: URL] {
        var sources: [String: URL] = [:]
        for version in ["A", "B"] {
            sources[version] = directory.appending("\(version).source")
            try Disk.writeVersion(version, files: files, size: 10_000, at: sources[version]!)
        }
        return sources
    }

    /// The tree unpacked at `url`, but for the time of its root, which is
    /// when the unpack made its last entry (the archives have no root entry).
    static func unpacked(_ url: URL) throws -> DiskTree {
        var tree = try DiskTree(url)
        tree.entries[""]?.modified = DiskTree.timespecValue(seconds: 0, nanoseconds: 0)
        return tree
    }

    @Test func packKilledLeavesTheOldArchiveOrTheNewOne() async throws {
        let tally = try await onThreadOfItsOwn(Self.killPacks)
        #expect(tally.killed >= Self.packKills, "\(tally)")
    }

    static func killPacks() throws -> KillHarness.Tally {
        let directory = try TemporaryDirectory()
        let sources = try Self.writeVersions(files: 240, in: directory)
        let archive = directory.appending("Doc.zip")
        return try KillHarness.alternateVersions(of: archive, kills: packKills) {
            ["pack", "zip", sources[$0]!.path, archive.path, "--reproducible"]
        } contents: {
            try Data(contentsOf: $0)
        }
    }

    @Test func unpackIntoAFreshDestinationKilledLeavesNothingOrTheWholeTree() async throws {
        let (tally, nothing) = try await onThreadOfItsOwn(Self.killFreshUnpacks)
        #expect(tally.killed >= Self.unpackKills, "\(tally)")
        #expect(nothing > 0, "no kill landed before the tree was in place")
    }

    /// Returns the tally and how many runs left nothing.
    static func killFreshUnpacks() throws -> (KillHarness.Tally, Int) {
        let directory = try TemporaryDirectory()
        let sources = try Self.writeVersions(files: 120, in: directory)
        let archive = directory.appending("A.tar")
        _ = try KillHarness.measure(["pack", "tar", sources["A"]!.path, archive.path])
        let destination = directory.appending("Unpacked")
        let duration = try KillHarness.measure(["unpack", archive.path, destination.path])
        let whole = try Self.unpacked(destination)

        var nothing = 0
        let tally = try KillHarness.killRepeatedly(target: destination, kills: unpackKills, maximumRuns: 300, duration: duration) {
            if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
            return ["unpack", archive.path, destination.path]
        } check: { run in
            guard FileManager.default.fileExists(atPath: destination.path) else {
                guard run.killed else { throw KillHarness.Failure("a finished unpack left no destination") }
                nothing += 1
                return
            }
            guard try Self.unpacked(destination) == whole else { throw KillHarness.Failure("the destination is not the whole tree") }
        }
        return (tally, nothing)
    }

    @Test func unpackWithForceKilledLeavesTheOldTreeOrTheNewOne() async throws {
        let tally = try await onThreadOfItsOwn(Self.killReplacingUnpacks)
        #expect(tally.killed >= Self.unpackKills, "\(tally)")
    }

    static func killReplacingUnpacks() throws -> KillHarness.Tally {
        let directory = try TemporaryDirectory()
        let sources = try Self.writeVersions(files: 120, in: directory)
        var archives: [String: URL] = [:]
        for version in ["A", "B"] {
            archives[version] = directory.appending("\(version).tar.gz")
            _ = try KillHarness.measure(["pack", "tar.gz", sources[version]!.path, archives[version]!.path])
        }
        let destination = directory.appending("Unpacked")
        return try KillHarness.alternateVersions(of: destination, kills: unpackKills) {
            ["unpack", archives[$0]!.path, destination.path, "--force"]
        } contents: {
            try Self.unpacked($0)
        }
    }
}
