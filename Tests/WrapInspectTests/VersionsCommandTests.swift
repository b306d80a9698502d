import Foundation
import Testing
import TestSupport

/// `wrapinspect versions DOC` and `wrapinspect diff --versions-of DOC OLD
/// NEW` on a document whose saves kept versions: made by the test child
/// (`fwk-test-child append-lines --versions`, a real controller saving a
/// package three times), read by the built `wrapinspect`.
@Suite("wrapinspect versions")
struct VersionsCommandTests {
    /// A lines package saved three times with versions on: three versions,
    /// of 0, 1 and 2 lines.
    static func versionedDocument() throws -> (TemporaryDirectory, URL) {
        let directory = try TemporaryDirectory()
        let document = directory.appending("Shared.lines")
        try FileManager.default.createDirectory(at: document, withIntermediateDirectories: false)
        let saved = try BuiltProgram.run("fwk-test-child", ["append-lines", document.path, "a", "3", "--versions"], in: directory.url)
        try #require(saved.status == 0 && saved.stdout == "saved 3\n", "\(saved.stderr)")
        return (directory, document)
    }

    @Test func listsEachVersionThenASummaryAndAsJSON() throws {
        let (directory, _) = try Self.versionedDocument()

        let text = try WrapInspectProcess.run(["versions", "Shared.lines"], in: directory.url)
        #expect(text.status == 0 && text.stderr == "", "\(text.stderr)")
        let lines = text.stdoutLines
        try #require(lines.count == 4, "\(text.stdout)")
        let ids = try Disk.names(in: directory.appending(".Shared.lines.fwk-versions"))
        for (line, id) in zip(lines, ids) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(fields.first.map(String.init) == id)
            #expect(fields.count == 4 && fields[1].hasSuffix("Z") && fields[1].contains("T") && fields[1].contains(":"), "\(line)")
        }
        #expect(lines[3].hasPrefix("3 versions, ") && lines[3].hasSuffix(" on disk"), "\(lines[3])")

        let json = try WrapInspectProcess.run(["versions", "--json", "Shared.lines"], in: directory.url)
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["document"] as? String == "Shared.lines")
        let versions = try #require(object["versions"] as? [[String: Any]])
        #expect(versions.compactMap { $0["id"] as? String } == ids)
        #expect(versions.allSatisfy { ($0["size"] as? Int ?? 0) > 0 }, "each version holds its own changed files: \(versions)")
        #expect(versions.allSatisfy { ($0["path"] as? String)?.hasPrefix(".Shared.lines.fwk-versions/") == true || ($0["path"] as? String)?.contains("/.Shared.lines.fwk-versions/") == true })
    }

    @Test func diffComparesTwoVersionsOrAVersionWithTheDocument() throws {
        let (directory, _) = try Self.versionedDocument()
        let ids = try Disk.names(in: directory.appending(".Shared.lines.fwk-versions"))
        try #require(ids.count == 3)

        let changed = try WrapInspectProcess.run(["diff", "--versions-of", "Shared.lines", ids[1], "current"], in: directory.url)
        #expect(changed.status == 1, "\(changed.stderr)")
        #expect(changed.stdout.contains("M lines.txt"), "\(changed.stdout)")
        #expect(changed.stdout.contains("M count"))

        let first = try WrapInspectProcess.run(["diff", "--versions-of", "Shared.lines", ids[0], ids[1]], in: directory.url)
        #expect(first.status == 1)
        #expect(first.stdout.contains("+ lines.txt"), "the first version is the empty package: \(first.stdout)")

        let same = try WrapInspectProcess.run(["diff", "--versions-of", "Shared.lines", ids[2], ids[2]], in: directory.url)
        #expect(same.status == 0 && same.stdout == "", "\(same.stdout)\(same.stderr)")
    }

    @Test func anUnknownVersionOrDocumentIsTroubleThatSaysSo() throws {
        let (directory, _) = try Self.versionedDocument()

        let unknown = try WrapInspectProcess.run(["diff", "--versions-of", "Shared.lines", "20000101T000000.000000000Z", "current"], in: directory.url)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Shared.lines has no version 20000101T000000.000000000Z"), "\(unknown.stderr)")

        let missing = try WrapInspectProcess.run(["versions", "Missing.lines"], in: directory.url)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("Missing.lines: no such document"), "\(missing.stderr)")

        let none = try WrapInspectProcess.run(["versions", "Other.txt"], in: { try Disk.write("x", to: directory.appending("Other.txt")); return directory.url }())
        #expect(none.status == 0 && none.stdout == "0 versions, 0 B on disk\n", "\(none.stdout)")
    }
}
