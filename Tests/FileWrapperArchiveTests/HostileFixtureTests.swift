import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// The hostile archives of `Fixtures/Hostile` (made by
/// `Tools/make-hostile-archives.py`, described in its manifest), read into
/// memory: refused with an error that names the archive, or accepted.
@Suite struct HostileFixtureTests {
    struct Fixture: Decodable, CustomTestStringConvertible, Sendable {
        let file: String
        let rule: String
        let expect: String
        let entry: String?
        /// The limit a refusal must name (`entries`, `bytes`, `ratio`, ...).
        let limit: String?
        /// For accepted archives: every entry expected after unpacking.
        let tree: [TreeEntry]?
        var testDescription: String { file }
    }

    struct TreeEntry: Decodable, Sendable {
        let path: String
        let kind: String
        let target: String?
        /// Octal, after dropping setuid, setgid, sticky and group/other write.
        let mode: String?
    }

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Hostile")

    static let fixtures: [Fixture] = {
        let data = (try? Data(contentsOf: directory.appendingPathComponent("manifest.json"))) ?? Data("[]".utf8)
        return (try? JSONDecoder().decode([Fixture].self, from: data)) ?? []
    }()

    /// Rules that only matter when unpacking to disk, where a symlink is
    /// followed or an entry may land on the destination: in memory a
    /// symlink is only text. The unpacker refuses these (UnpackTests).
    static let unpackOnlyRules: Set = [
        "symlink-escape", "symlink-write-through", "hardlink-to-symlink", "destination-itself",
    ]

    @Test func theManifestIsThere() {
        #expect(Self.fixtures.count >= 50)
    }

    @Test(arguments: fixtures.filter { $0.expect == "refuse" && !unpackOnlyRules.contains($0.rule) })
    func isRefused(fixture: Fixture) throws {
        let url = Self.directory.appendingPathComponent(fixture.file)
        var limits = ArchiveReadLimits.inMemory
        if fixture.limit == "entries" {
            // 200,000 entries: refused past the default 100,000 at full size,
            // past 1,000 in a reduced run (``TestSizes``), as UnpackTests does.
            limits.maxEntries = TestSizes.pick(full: limits.maxEntries, reduced: 1000)
        }
        let error = try #require(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(contentsOf: url, limits: limits) }
        #expect(error.archive == url.path)
        if let entry = fixture.entry, ![.corrupt, .limitExceeded].contains(error.code) {
            #expect(error.entry == entry, "\(error)")
        }
    }

    @Test(arguments: fixtures.filter { $0.expect == "accept" })
    func isAccepted(fixture: Fixture) throws {
        let tree = try ArchiveReader.fileWrapper(contentsOf: Self.directory.appendingPathComponent(fixture.file))
        #expect(!(tree.fileWrappers ?? [:]).isEmpty)
    }
}
