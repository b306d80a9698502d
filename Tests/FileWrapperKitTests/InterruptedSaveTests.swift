import Foundation
import Testing
import TestSupport

/// An atomic save over an existing package, killed (SIGKILL) at random
/// instants in a child process, at least 30 times mid-save (4 in a reduced
/// run, ``KillHarness/kills(full:)``): the document is
/// the old version or the new one, whole; nothing beside it changes; the
/// next save removes what the killed ones left.
@Suite(.startsProcesses) struct InterruptedSaveTests {
    static let kills = KillHarness.kills(full: 30)

    @Test func killedAtRandomInstantsTheDocumentIsOldOrNewWhole() async throws {
        let tally = try await onThreadOfItsOwn(Self.killSaves)
        #expect(tally.killed >= Self.kills, "\(tally)")
    }

    static func killSaves() throws -> KillHarness.Tally {
        let directory = try TemporaryDirectory()
        var sources: [String: URL] = [:]
        for version in ["A", "B"] {
            sources[version] = directory.appending("\(version).source")
            try Disk.writeVersion(version, files: 120, size: 10_000, at: sources[version]!)
        }
        let document = directory.appending("Doc.package")
        return try KillHarness.alternateVersions(of: document, kills: kills, maximumRuns: 240) {
            ["save", sources[$0]!.path, document.path]
        } contents: {
            try DiskTree($0, directoryTimes: false)
        }
    }
}
