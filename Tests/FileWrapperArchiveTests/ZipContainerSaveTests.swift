@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 25, item 2: ``ZipContainer/write(_:to:options:)`` of a tree read
/// from a zip copies every untouched member as it is stored (local header
/// and data byte for byte), writes the changed and new ones anew, keeps
/// the members' order (a stored `mimetype` first) with new ones at the
/// end, to the same zip or another, and what it writes reads with
/// `unzip -t`, bsdtar and Python's zipfile.
@Suite(.startsProcesses) struct ZipContainerSaveTests {
    /// The regular files of a tree by path, read.
    static func files(of root: FileWrapper) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        var pending = [("", root)]
        while let (path, wrapper) = pending.popLast() {
            if wrapper.isDirectory {
                pending += wrapper.fileWrappers!.map { (path.isEmpty ? $0.key : path + "/" + $0.key, $0.value) }
            } else {
                files[path] = Array(try wrapper.readRegularFileContents())
            }
        }
        return files
    }

    /// Checks the zip at `url` with `unzip -t`, and that bsdtar extracts
    /// exactly `expected`.
    static func checkWithOtherTools(_ url: URL, expected: [String: [UInt8]], in directory: TemporaryDirectory) throws {
        let tested = try Interop.run("unzip", ["-t", url.path], in: directory.url)
        #expect(tested.stdout.contains("No errors detected"), "\(tested.stdout)")
        let extracted = directory.appending("bsdtar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: false)
        try Interop.run("bsdtar", ["-xf", url.path, "-C", extracted.path], in: directory.url)
        #expect(try files(of: FileWrapper(url: extracted)) == expected)
    }

    /// Replaces the regular file at `path` with one holding `contents`.
    static func replace(_ path: String, in root: FileWrapper, with contents: [UInt8]) throws {
        let names = path.split(separator: "/").map(String.init)
        let parent = try ZipContainerReadTests.wrapper(at: names.dropLast().joined(separator: "/"), in: root)
        if let old = parent.fileWrappers?[names.last!] { parent.removeFileWrapper(old) }
        parent.addRegularFile(withContents: Data(contents), preferredFilename: names.last!)
    }

    @Test(arguments: [false, true])
    func unchangedMembersAreCopiedAsStoredChangedOnesWrittenAnewInTheirOrder(toAnotherPath: Bool) throws {
        let directory = try TemporaryDirectory()
        let files = ZipContainerReadTests.documentFiles(seed: 52)
        let zip = try ZipContainerReadTests.infoZipDocument(files, in: directory)
        let original = try Data(contentsOf: zip)
        let before = try StoredZipMembers.list(zip)
        #expect(before.first?.name == "mimetype" && before.first?.method == 0)

        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        var expected = Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.contents) })
        expected["content.xml"]! += Array("<p>one more paragraph</p>\n".utf8)
        try Self.replace("content.xml", in: root, with: expected["content.xml"]!)
        expected["new/added.txt"] = Array("added after the others\n".utf8)
        _ = root.addingDirectory("new")
        try Self.replace("new/added.txt", in: root, with: expected["new/added.txt"]!)
        let media = try ZipContainerReadTests.wrapper(at: "media", in: root)
        media.removeFileWrapper(media.fileWrappers!["photo2.bin"]!)
        expected["media/photo2.bin"] = nil

        let target = toAnotherPath ? directory.appending("saved.zip") : zip
        try ZipContainer.write(root, to: target)

        let after = try StoredZipMembers.list(target)
        let kept = before.filter { $0.name != "media/photo2.bin" }.map(\.name)
        #expect(after.map(\.name) == kept + ["new/", "new/added.txt"])
        #expect(after.first?.name == "mimetype" && after.first?.method == 0 && after.first?.extra == 0)
        for member in after where member.name != "content.xml" && !member.name.hasPrefix("new/") {
            #expect(member == before.first { $0.name == member.name }, "\(member.name) is not byte for byte the old zip's")
        }
        #expect(after.first { $0.name == "content.xml" }?.raw != before.first { $0.name == "content.xml" }?.raw)
        try Self.checkWithOtherTools(target, expected: expected, in: directory)
        if toAnotherPath { #expect(try Data(contentsOf: zip) == original, "the zip read from changed") }

        // The tree now reads from the zip written, which a second save copies from.
        #expect(try Self.files(of: root) == expected)
        expected["meta.json"] = Array("{\"title\": \"Renamed\"}\n".utf8)
        try Self.replace("meta.json", in: root, with: expected["meta.json"]!)
        try ZipContainer.write(root, to: target)
        let again = try StoredZipMembers.list(target)
        #expect(again.map(\.name) == after.map(\.name))
        // Directories are written anew each time (one made in memory has no time of its own).
        for member in again where member.name != "meta.json" && !member.name.hasSuffix("/") {
            #expect(member == after.first { $0.name == member.name }, "\(member.name) changed in the second save")
        }
        try Self.checkWithOtherTools(target, expected: expected, in: directory)
    }

    /// When the zip read from was replaced, members whose bytes were read
    /// are written from memory; one that was never read cannot be, and the
    /// save fails naming it, writing nothing.
    @Test func membersReadBeforeTheirZipWasReplacedAreWrittenFromMemory() throws {
        let directory = try TemporaryDirectory()
        let files = ZipContainerReadTests.documentFiles(seed: 77)
        let zip = try ZipContainerReadTests.infoZipDocument(files, in: directory)
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        let expected = try Self.files(of: root)
        let unread = try ZipContainer.fileWrapper(contentsOf: zip)
        let other = directory.appending("other.zip")
        try FileManager.default.copyItem(at: zip, to: other)
        #expect(rename(other.path, zip.path) == 0)

        let saved = directory.appending("saved.zip")
        try ZipContainer.write(root, to: saved)
        try Self.checkWithOtherTools(saved, expected: expected, in: directory)

        let refused = try #require(throws: ArchiveError.self) { try ZipContainer.write(unread, to: directory.appending("never.zip")) }
        #expect((refused.underlying as? FileWrapperError)?.code == .changedOnDisk && refused.entry == "mimetype", "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("never.zip").path))
    }

    /// A member whose attributes changed is written anew, with them.
    @Test func aMemberWhosePermissionsChangedIsWrittenAnew() throws {
        let directory = try TemporaryDirectory()
        let zip = try ZipContainerReadTests.infoZipDocument(ZipContainerReadTests.documentFiles(seed: 9), in: directory)
        let before = try StoredZipMembers.list(zip)
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        try ZipContainerReadTests.wrapper(at: "meta.json", in: root).attributes.permissions = 0o600
        try ZipContainer.write(root, to: zip)
        let after = try StoredZipMembers.list(zip)
        #expect(after.first { $0.name == "meta.json" } != before.first { $0.name == "meta.json" })
        #expect(after.first { $0.name == "content.xml" } == before.first { $0.name == "content.xml" })
        let reread = try ZipContainer.fileWrapper(contentsOf: zip)
        #expect(try ZipContainerReadTests.wrapper(at: "meta.json", in: reread).attributes.permissions == 0o600)
    }

    /// Members stored by Python's zipfile in zip64 form, with data
    /// descriptors (written to a stream), are copied with them.
    @Test func pythonMembersWithDataDescriptorsAndZip64AreCopiedWhole() throws {
        let directory = try TemporaryDirectory()
        let zip = directory.appending("python.zip")
        try Interop.run("python3", ["-c", """
            import io, sys, zipfile
            class Stream(io.RawIOBase):
                def __init__(self, f): self.f = f
                def writable(self): return True
                def write(self, b): return self.f.write(b)
            with open(sys.argv[1], "wb") as out:
                with zipfile.ZipFile(Stream(out), "w", zipfile.ZIP_DEFLATED) as z:
                    z.writestr("described.txt", b"a data descriptor follows " * 2000)
                    with z.open(zipfile.ZipInfo("forced64.txt"), "w", force_zip64=True) as f:
                        f.write(b"zip64 sizes " * 5000)
                    z.writestr("last.txt", b"the last member")
            """, zip.path], in: directory.url)
        let before = try StoredZipMembers.list(zip)
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        var expected = try Self.files(of: root)
        expected["last.txt"] = Array("changed".utf8)
        try Self.replace("last.txt", in: root, with: expected["last.txt"]!)
        let saved = directory.appending("saved.zip")
        try ZipContainer.write(root, to: saved)
        let after = try StoredZipMembers.list(saved)
        #expect(after.prefix(2) == before.prefix(2))
        try Self.checkWithOtherTools(saved, expected: expected, in: directory)
        #expect(try Self.files(of: ZipContainer.fileWrapper(contentsOf: saved)) == expected)
    }

    /// With zip64 thresholds brought down, copied members whose offsets
    /// pass them get zip64 central records, which every reader follows.
    @Test func copiedMembersPastTheZip64ThresholdsGetZip64Records() throws {
        let directory = try TemporaryDirectory()
        let zip = try ZipContainerReadTests.infoZipDocument(ZipContainerReadTests.documentFiles(seed: 64), in: directory)
        let root = try ZipContainer.fileWrapper(contentsOf: zip)
        let expected = try Self.files(of: root)
        let saved = directory.appending("zip64.zip")
        try Zip64Thresholds.$current.withValue(Zip64Thresholds(bytes: 1 << 20, entries: 4)) {
            try ZipContainer.write(root, to: saved)
        }
        let listing = try Interop.run("zipinfo", ["-v", saved.path], in: directory.url).stdout
        #expect(listing.contains("Zip64"), "no zip64 record in \(saved.lastPathComponent)")
        #expect(try StoredZipMembers.list(saved).map(\.raw) == StoredZipMembers.list(zip).map(\.raw))
        try Self.checkWithOtherTools(saved, expected: expected, in: directory)
    }
}

extension FileWrapper {
    /// The child directory `name`, added when there is none.
    func addingDirectory(_ name: String) -> FileWrapper {
        if let existing = fileWrappers?[name] { return existing }
        let directory = FileWrapper(directoryWithFileWrappers: [:])
        directory.preferredFilename = name
        addFileWrapper(directory)
        return directory
    }
}
