import Foundation
import Testing

/// The sample document as committed: the parts the dump tests rely on.
@Suite("Fixtures/Travel.journal")
struct SampleFixtureTests {
    let fixture = SampleJournal.fixtureURL
    let files = FileManager.default

    @Test func symlinksAreRelativeAndPointInside() throws {
        #expect(try files.destinationOfSymbolicLink(atPath: fixture.appendingPathComponent("Latest.md").path) == "Entries/2026-05-03 Porto.md")
        #expect(try files.destinationOfSymbolicLink(atPath: fixture.appendingPathComponent("Cover").path) == "Media")
    }

    @Test func exportScriptIsExecutable() throws {
        let path = fixture.appendingPathComponent("Scripts/export.sh").path
        let mode = try #require(files.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
        #expect(mode & 0o100 != 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("#!/bin/sh\n"))
    }

    @Test func indexListsEveryEntry() throws {
        struct Index: Decodable {
            struct Entry: Decodable { var file: String }
            var entries: [Entry]
        }
        let data = try Data(contentsOf: fixture.appendingPathComponent("index.json"))
        let index = try JSONDecoder().decode(Index.self, from: data)
        let entries = try files.contentsOfDirectory(atPath: fixture.appendingPathComponent("Entries").path)
        #expect(Set(index.entries.map(\.file)) == Set(entries.map { "Entries/" + $0 }))
    }

    @Test func imagesAreJPEGAndPNG() throws {
        let jpeg = try Data(contentsOf: fixture.appendingPathComponent("Media/harbour.jpg"))
        #expect(jpeg.prefix(3) == Data([0xFF, 0xD8, 0xFF]) && jpeg.suffix(2) == Data([0xFF, 0xD9]))
        #expect(jpeg.count > 64 * 1024)  // big enough to be mapped when read
        let png = try Data(contentsOf: fixture.appendingPathComponent("QuickLook/Thumbnail.png"))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    }

    @Test func sampleStaysSmall() throws {
        let journal = try SampleJournal()
        #expect(try journal.totalFileBytes() < 600 * 1024)
    }
}
