import Foundation
import Testing
import TestSupport

/// An atomic save over an existing package, killed (SIGKILL) at random
/// instants in a child process, at least 30 times mid-save (6 in a reduced
/// run, ``TestSizes``): the document is
/// the old version or the new one, whole; nothing beside it changes; the
/// next save removes what the killed ones left.
@Suite struct InterruptedSaveTests {
    static let kills = TestSizes.pick(full: 30, reduced: 6)

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
        let trees = try sources.mapValues { try DiskTree($0, directoryTimes: false) }
        let document = directory.appending("Doc.package")
        func save(_ version: String) -> [String] { ["save", sources[version]!.path, document.path] }
        _ = try KillHarness.measure(save("A"))
        let duration = try KillHarness.measure(save("B"))

        var current = "B"
        var saving = "A"
        return try KillHarness.killRepeatedly(target: document, kills: kills, maximumRuns: 240, duration: duration) {
            saving = current == "A" ? "B" : "A"
            return save(saving)
        } check: { run in
            let onDisk = try DiskTree(document, directoryTimes: false)
            guard let found = trees.first(where: { $0.value == onDisk })?.key else {
                throw KillHarness.Failure("after \(run.killed ? "a kill" : "a finished save") the document is neither version:\n\(onDisk)")
            }
            guard run.killed || found == saving else { throw KillHarness.Failure("a finished save left version \(found)") }
            current = found
        }
    }
}
