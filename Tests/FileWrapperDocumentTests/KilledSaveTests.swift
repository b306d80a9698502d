import FileWrapperArchive
import FileWrapperDocument
import Foundation
import Testing
import TestSupport

/// What must hold (4): a document killed mid-save (SIGKILL, at random
/// instants, at least 40 times mid-save for a bundle and 30 for a zip
/// container; 4 in a reduced run, ``KillHarness/kills(full:)``) is the old
/// version or the new one, whole; nothing beside it
/// changes; the next save removes what a killed one left.
///
/// Each save is `fwk-test-child save-document`: it opens the document with
/// a DocumentController, makes its files those of the other version (a few
/// hundred files; one unchanged, which a bundle links) and saves in place.
@Suite(.startsProcesses) struct KilledSaveTests {
    static let bundleKills = KillHarness.kills(full: 40)
    static let zipKills = KillHarness.kills(full: 30)

    @Test func aBundleKilledMidSaveIsOldOrNewWhole() async throws {
        let tally = try await onThreadOfItsOwn {
            try Self.killSaves(of: "Killed.files", files: 120, kills: Self.bundleKills, firstWrittenBy: "save") { try DiskTree($0).ignoringTimes }
        }
        #expect(tally.killed >= Self.bundleKills, "\(tally)")
    }

    @Test func aZipContainerKilledMidSaveIsOldOrNewWhole() async throws {
        let tally = try await onThreadOfItsOwn {
            try Self.killSaves(of: "Killed.zip", files: 240, kills: Self.zipKills, firstWrittenBy: "pack", "zip") { try Self.files(ofContainer: $0) }
        }
        #expect(tally.killed >= Self.zipKills, "\(tally)")
    }

    /// Saves the document `name` (versions A and B of `files` files in
    /// turn), killing saves until `kills` were killed mid-save; `contents`
    /// reads what the document holds, which must be one version's after
    /// every run. A bundle's save syncs the file system, so it has fewer
    /// files, to keep the test short.
    static func killSaves<Contents: Equatable>(
        of name: String, files: Int, kills: Int, firstWrittenBy command: String..., contents: (URL) throws -> Contents
    ) throws -> KillHarness.Tally {
        let directory = try TemporaryDirectory()
        var sources: [String: URL] = [:]
        for version in ["A", "B"] {
            sources[version] = directory.appending("\(version).source")
            try Disk.writeVersion(version, files: files, size: 10_000, at: sources[version]!)
        }
        let document = directory.appending(name)
        // A save opens the document: it must exist.
        _ = try KillHarness.measure(command + [sources["A"]!.path, document.path])
        return try KillHarness.alternateVersions(of: document, kills: kills, writing: {
            ["save-document", sources[$0]!.path, document.path]
        }, contents: contents)
    }

    /// The regular files of the zip container at `url` by path: what the
    /// document holds (the files' times are those of its saves).
    static func files(ofContainer url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        var pending = [("", try ArchiveReader.fileWrapper(contentsOf: url, formats: .zip))]
        while let (path, wrapper) = pending.popLast() {
            if wrapper.isDirectory {
                pending += wrapper.fileWrappers!.map { (path.isEmpty ? $0.key : path + "/" + $0.key, $0.value) }
            } else {
                files[path] = try wrapper.readRegularFileContents()
            }
        }
        return files
    }
}
