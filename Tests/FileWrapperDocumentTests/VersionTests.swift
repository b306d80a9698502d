import FileWrapperDocument
import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 37, item 3: a controller that keeps versions keeps, at each save,
/// the version it replaces, as hard links (a bundle costs its changed
/// files); lists them with dates and sizes, reads one as a document and
/// restores one, and prunes them by count and by age.
@Suite struct VersionTests {
    /// The proof: a bundle with a 1 GiB file (sparse but for its
    /// first blocks, so that sharing them is what is measured) and 1 KiB
    /// changed keeps a version that costs about the changed file's blocks;
    /// the large file is the very inode the document still has.
    @Test func aBundleVersionCostsItsChangedFileNotItsLargeOne() async throws {
        let directory = try TemporaryDirectory()
        let written = TestSizes.pick(full: 64 << 20, reduced: 1 << 20)
        let url = try Self.package(in: directory, note: "first", bigWritten: written, bigSize: 1 << 30)
        let controller = try await DocumentController<VersionedPackage>(contentsOf: url, contentType: VersionedPackage.package)
        await controller.setVersionPolicy(.keeping())

        try await controller.update { $0.note = String(repeating: "x", count: 1024) }
        try await controller.save()

        let versions = try await controller.versions()
        try #require(versions.count == 1)
        let version = versions[0]
        // The version's own: the old note's block and the version's folder; not a block of big.bin.
        #expect(version.size > 0 && version.size <= 64 << 10, "\(version.size) bytes")
        #expect(Self.uniqueBlocks(under: version.fileURL) == version.size, "the size is what only the version holds")
        let big = version.fileURL.appendingPathComponent("big.bin")
        #expect(Disk.inode(big) == Disk.inode(url.appendingPathComponent("big.bin")))
        #expect(Disk.status(big).st_size == 1 << 30)
        #expect(try Disk.text(version.fileURL.appendingPathComponent("note.txt")) == "first")
        #expect(abs(version.date.timeIntervalSinceNow) < 60)
        #expect(version.fileURL.deletingLastPathComponent().lastPathComponent == ".Notes.versioned.fwk-versions")
        #expect(try Disk.names(in: directory.url) == [".Notes.versioned.fwk-versions", "Notes.versioned"])
    }

    /// Each version read as a document is the document as it was; restoring
    /// one is a save that keeps the version it replaces, so restoring that
    /// one puts the document back.
    @Test func aVersionReadsAsTheOldDocumentAndRestoringIsUndoneByRestoringAgain() async throws {
        let directory = try TemporaryDirectory()
        let url = try Self.package(in: directory, note: "one")
        let controller = try await DocumentController<VersionedPackage>(contentsOf: url, contentType: VersionedPackage.package)
        await controller.setVersionPolicy(.keeping())
        for note in ["two", "three"] {
            try await controller.update { $0.note = note }
            try await controller.save()
        }

        let versions = try await controller.versions()
        #expect(versions.map(\.id) == versions.map(\.id).sorted() && versions.count == 2)
        #expect(try await controller.document(of: versions[0]).note == "one")
        #expect(try await controller.document(of: versions[1]).note == "two")

        try await controller.restore(versions[0])
        #expect(await controller.document.note == "one")
        #expect(await !controller.hasUnsavedChanges)
        #expect(try Disk.text(url.appendingPathComponent("note.txt")) == "one")
        let after = try await controller.versions()
        #expect(after.count == 3)
        #expect(try await controller.document(of: after[2]).note == "three", "the restore kept the version it replaced")

        try await controller.restore(after[2])
        #expect(await controller.document.note == "three")
        #expect(try Disk.text(url.appendingPathComponent("note.txt")) == "three")
        // The restored document saves on as any other.
        try await controller.update { $0.note = "four" }
        try await controller.save()
        #expect(try await DocumentController<VersionedPackage>(contentsOf: url, contentType: VersionedPackage.package).document.note == "four")
        #expect(try await controller.versions().count == 5)
    }

    /// A count keeps the newest versions; an age removes versions kept longer ago.
    @Test func savesPruneByCountAndByAge() async throws {
        let directory = try TemporaryDirectory()
        let url = try Self.package(in: directory, note: "0")
        let controller = try await DocumentController<VersionedPackage>(contentsOf: url, contentType: VersionedPackage.package)
        await controller.setVersionPolicy(.keeping(count: 2))
        for note in 1...5 {
            try await controller.update { $0.note = "\(note)" }
            try await controller.save()
        }
        var notes: [String] = []
        for version in try await controller.versions() { notes.append(try await controller.document(of: version).note) }
        #expect(notes == ["3", "4"])

        await controller.setVersionPolicy(.keeping(age: 0.2))
        usleep(250_000)
        try await controller.update { $0.note = "6" }
        try await controller.save()
        let left = try await controller.versions()
        #expect(left.count == 1)
        #expect(try await controller.document(of: left[0]).note == "5")
    }

    /// A flat file and a zip container: the version is the replaced file
    /// itself (its inode), not a copy.
    @Test(arguments: ["Notes.txt", "Notes.versionedzip"])
    func aFileVersionIsTheReplacedFileItself(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending(name)
        let type = name.hasSuffix(".txt") ? UTType.plainText : VersionedPackage.container
        try await DocumentController(newDocument: VersionedPackage(note: "old"), contentType: type).save(to: url)
        let inode = Disk.inode(url)
        let controller = try await DocumentController<VersionedPackage>(contentsOf: url, contentType: type)
        await controller.setVersionPolicy(.keeping())

        try await controller.update { $0.note = "new" }
        try await controller.save()

        let versions = try await controller.versions()
        try #require(versions.count == 1)
        #expect(Disk.inode(versions[0].fileURL) == inode)
        #expect(Disk.inode(url) != inode)
        #expect(versions[0].size == Int64(Disk.status(versions[0].fileURL).st_blocks) * 512)
        #expect(try await controller.document(of: versions[0]).note == "old")
        #expect(try await DocumentController<VersionedPackage>(contentsOf: url, contentType: type).document.note == "new")
    }

    /// A version that cannot be kept (here something else holds the
    /// versions folder's name) fails the save before it writes: the
    /// document on disk is the old one, the edit is still unsaved, and the
    /// error says why. Without versions the same save succeeds.
    @Test func aVersionThatCannotBeKeptFailsTheSaveAndChangesNothing() async throws {
        let directory = try TemporaryDirectory()
        let url = try Self.package(in: directory, note: "kept")
        try Disk.write("not a folder", to: directory.appending(".Notes.versioned.fwk-versions"))
        let controller = try await DocumentController<VersionedPackage>(contentsOf: url, contentType: VersionedPackage.package)
        await controller.setVersionPolicy(.keeping())
        try await controller.update { $0.note = "lost?" }

        let error = try await #require(throws: DocumentError.self) { try await controller.save() }

        #expect(error.code == .writeFailed)
        #expect(error.description.contains("the version it would replace could not be kept in .Notes.versioned.fwk-versions"), "\(error)")
        #expect(error.description.contains("nothing was written"))
        #expect(try Disk.text(url.appendingPathComponent("note.txt")) == "kept")
        #expect(await controller.hasUnsavedChanges)
        await controller.setVersionPolicy(.off)
        try await controller.save()
        #expect(try Disk.text(url.appendingPathComponent("note.txt")) == "lost?")
    }

    /// Versions off (the default) keep nothing and make no folder; a
    /// restore over another controller's save is refused like any save.
    @Test func versionsOffKeepNothingAndARestoreOverAnotherSaveIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let url = try Self.package(in: directory, note: "a")
        let first = try await DocumentController<VersionedPackage>(contentsOf: url, contentType: VersionedPackage.package)
        try await first.update { $0.note = "b" }
        try await first.save()
        #expect(try Disk.names(in: directory.url) == ["Notes.versioned"])
        #expect(try await first.versions().isEmpty)

        await first.setVersionPolicy(.keeping())
        try await first.update { $0.note = "c" }
        try await first.save()
        let other = try await DocumentController<VersionedPackage>(contentsOf: url, contentType: VersionedPackage.package)
        try await other.update { $0.note = "d" }
        try await other.save()
        let version = try #require(try await first.versions().first)

        let error = try await #require(throws: DocumentError.self) { try await first.restore(version) }
        #expect(error.code == .changedOnDisk)
        #expect(try Disk.text(url.appendingPathComponent("note.txt")) == "d")
        try await first.restore(version, force: true)
        #expect(try Disk.text(url.appendingPathComponent("note.txt")) == "b")
    }

    /// Renaming the document takes its versions along.
    @Test func renamingTakesTheVersionsAlong() async throws {
        let directory = try TemporaryDirectory()
        let url = try Self.package(in: directory, note: "a")
        let controller = try await DocumentController<VersionedPackage>(contentsOf: url, contentType: VersionedPackage.package)
        await controller.setVersionPolicy(.keeping())
        try await controller.update { $0.note = "b" }
        try await controller.save()

        try await controller.rename(to: "Renamed.versioned")

        #expect(try Disk.names(in: directory.url) == [".Renamed.versioned.fwk-versions", "Renamed.versioned"])
        let versions = try await controller.versions()
        #expect(versions.count == 1)
        #expect(try await controller.document(of: versions[0]).note == "a")
    }

    /// A document whose name is as long as a name may be has a versions
    /// folder whose name is cut as its lock file's is, so that it fits
    /// `NAME_MAX` (255 bytes).
    @Test func aLongNameHasAVersionsFolderThatFits() async throws {
        let directory = try TemporaryDirectory()
        let name = String(repeating: "é", count: 120) + ".txt"  // 244 bytes
        let url = directory.appending(name)
        try await DocumentController(newDocument: VersionedPackage(note: "old"), contentType: .plainText).save(to: url)
        let controller = try await DocumentController<VersionedPackage>(contentsOf: url, contentType: .plainText)
        await controller.setVersionPolicy(.keeping())
        try await controller.update { $0.note = "new" }

        try await controller.save()

        let folder = "." + String(repeating: "é", count: 50) + ".fwk-versions"
        #expect(try Disk.names(in: directory.url) == [folder, name].sorted())
        #expect(try await controller.document(of: try #require(try await controller.versions().first)).note == "old")
    }

    /// A package `Notes.versioned` in `directory`: `note.txt` and
    /// `big.bin`, whose first `bigWritten` bytes are written and the rest
    /// up to `bigSize` a hole.
    static func package(in directory: TemporaryDirectory, note: String, bigWritten: Int = 4096, bigSize: Int = 4096) throws -> URL {
        let url = directory.appending("Notes.versioned")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Disk.write(note, to: url.appendingPathComponent("note.txt"))
        let big = url.appendingPathComponent("big.bin")
        try Disk.write(Data(repeating: 0xA5, count: bigWritten), to: big)
        guard truncate(big.path, off_t(bigSize)) == 0 else { throw POSIXError(.EIO) }
        return url
    }

    /// The bytes of the blocks that only the tree at `url` holds: its
    /// folders', and its files' whose every link is in it.
    static func uniqueBlocks(under url: URL) -> Int64 {
        var total: Int64 = 0
        var links: [UInt64: (count: Int, info: stat)] = [:]
        var pending = [url]
        while let next = pending.popLast() {
            let info = Disk.status(next)
            if info.st_mode & S_IFMT == S_IFDIR {
                total += Int64(info.st_blocks) * 512
                pending += ((try? FileManager.default.contentsOfDirectory(atPath: next.path)) ?? []).map { next.appendingPathComponent($0) }
            } else {
                links[UInt64(info.st_ino), default: (0, info)].count += 1
            }
        }
        for (count, info) in links.values where count == Int(info.st_nlink) { total += Int64(info.st_blocks) * 512 }
        return total
    }
}

/// A note and a large file that saves keep as they are: a package
/// (`note.txt`, `big.bin` taken from the existing file), a zip container
/// of the same, or the note as a flat text file.
struct VersionedPackage: FileDocument {
    static let package = UTType(exportedAs: "org.filewrapperkit.test-versioned", conformingTo: .package)
    static let container = UTType(exportedAs: "org.filewrapperkit.test-versioned-zip", conformingTo: .zip)
    static var readableContentTypes: [UTType] { [package, container, .plainText] }

    var note: String

    init(note: String) {
        self.note = note
    }

    init(configuration: ReadConfiguration) throws {
        let file = configuration.file.isDirectory ? configuration.file.fileWrappers?["note.txt"] : configuration.file
        guard let data = file?.regularFileContents else { throw CocoaError(.fileReadCorruptFile) }
        note = String(decoding: data, as: UTF8.self)
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let note = FileWrapper(regularFileWithContents: Data(note.utf8))
        guard configuration.contentType != .plainText else { return note }
        var files = ["note.txt": note]
        if let big = configuration.existingFile?.fileWrappers?["big.bin"] { files["big.bin"] = big }
        return FileWrapper(directoryWithFileWrappers: files)
    }
}
