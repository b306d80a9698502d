import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// The streaming listing: entries in archive order with their kinds, sizes,
/// targets and contents; unsafe names listed rather than refused; limits.
@Suite struct ArchiveEntriesTests {
    static let time = FileTimestamp(seconds: 1_700_000_000)
    static let blob = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })

    /// `a.txt`, `dir/` holding a 200 KB file and a link back to `a.txt`, an empty `empty/`.
    static func tree() -> FileWrapper {
        func stamped(_ wrapper: FileWrapper, _ permissions: UInt16) -> FileWrapper {
            wrapper.attributes = .init(permissions: permissions, modificationDate: time)
            return wrapper
        }
        let link = FileWrapper(symbolicLinkWithDestination: "../a.txt")
        link.attributes.modificationDate = time
        return FileWrapper(directoryWithFileWrappers: [
            "a.txt": stamped(FileWrapper(regularFileWithContents: Data("hello\n".utf8)), 0o644),
            "dir": stamped(FileWrapper(directoryWithFileWrappers: [
                "b.bin": stamped(FileWrapper(regularFileWithContents: blob), 0o600),
                "link": link,
            ]), 0o755),
            "empty": stamped(FileWrapper(directoryWithFileWrappers: [:]), 0o700),
        ])
    }

    static let hostile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Hostile")

    /// Each entry as `path kind size`, and the files' contents by path.
    static func list(_ data: Data, name: String) throws -> (lines: [String], contents: [String: Data], entries: [ArchiveEntry]) {
        var lines: [String] = []
        var contents: [String: Data] = [:]
        var entries: [ArchiveEntry] = []
        try ArchiveEntries.forEach(in: data, name: name) { entry, reader in
            // Directory names end in "/" in some formats and not in others.
            let path = entry.displayPath.hasSuffix("/") ? String(entry.displayPath.dropLast()) : entry.displayPath
            lines.append("\(path) \(entry.kind) \(entry.kind == .regularFile ? entry.size.map(String.init) ?? "?" : "-")")
            var bytes = Data()
            try reader.forEachBlock { bytes.append(contentsOf: $0) }
            if entry.kind == .regularFile { contents[path] = bytes }
            entries.append(entry)
        }
        return (lines, contents, entries)
    }

    @Test(arguments: [ArchiveFormat.tar, .zip, .cpio, .sevenZip, .tarGzip, .tarBzip2, .tarXz, .tarZstd, .tarLz4])
    func listsATreeInArchiveOrder(format: ArchiveFormat) throws {
        let data = try ArchiveWriter.data(for: Self.tree(), options: ArchiveWriteOptions(format: format))
        let listing = try Self.list(data, name: "tree.\(format.fileExtension)")
        let (file, directory, blob, link, empty) = (
            "a.txt regularFile 6", "dir directory -", "dir/b.bin regularFile 200000", "dir/link symbolicLink -", "empty directory -"
        )
        // libarchive's 7z writer puts directories after files, empty ones first.
        #expect(listing.lines == (format == .sevenZip ? [file, blob, link, empty, directory] : [file, directory, blob, link, empty]))
        #expect(listing.contents == ["a.txt": Data("hello\n".utf8), "dir/b.bin": Self.blob])
        let entries = Dictionary(listing.entries.map { ($0.displayPath, $0) }) { first, _ in first }
        #expect(entries["dir/link"]?.symbolicLinkTarget == Array("../a.txt".utf8))
        #expect(entries["a.txt"]?.permissions == 0o644)
        #expect(entries["dir/b.bin"]?.permissions == 0o600)
        #expect(entries["a.txt"]?.modified?.seconds == Self.time.seconds)
        #expect(listing.entries.allSatisfy { $0.hardLinkTarget == nil && !$0.isEncrypted && $0.path != nil })
    }

    @Test(arguments: [ArchiveFormat.tarZstd, .zip])
    func listsFromAPipe(format: ArchiveFormat) throws {
        let data = try ArchiveWriter.data(for: Self.tree(), options: ArchiveWriteOptions(format: format))
        let directory = try TemporaryDirectory()
        let fifo = directory.appending("archive.fifo")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let writer = Thread { try? data.write(to: fifo) }
        writer.start()
        var names: [String] = []
        var sizes: [Int] = []
        try ArchiveEntries.forEach(in: fifo) { entry, contents in
            names.append(entry.displayPath)
            var size = 0
            try contents.forEachBlock { size += $0.count }
            sizes.append(size)
        }
        #expect(names.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } == ["a.txt", "dir", "dir/b.bin", "dir/link", "empty"])
        // A zip from a pipe goes through a spool, so its central directory,
        // where a symlink is marked, makes the link a link as from a file
        // (read as a stream, it came as a file that holds its target).
        #expect(sizes == [6, 0, 200_000, 0, 0])
    }

    @Test func listsUnsafeNamesInsteadOfRefusingThem() throws {
        var listed: [String: ArchiveEntry.Kind] = [:]
        for fixture in ["dotdot.tar", "absolute-path.zip", "dotdot-middle.tar", "device-node-char.tar", "fifo.cpio", "socket.cpio"] {
            try ArchiveEntries.forEach(in: Self.hostile.appendingPathComponent(fixture)) { entry, _ in
                listed[entry.displayPath] = entry.kind
            }
        }
        #expect(listed["../FileWrapperKit-hostile-dotdot"] == .regularFile)
        #expect(listed["/tmp/FileWrapperKit-hostile-absolute-path"] == .regularFile)
        #expect(listed["sub/../../FileWrapperKit-hostile-dotdot-middle"] == .regularFile)
        #expect(listed["null"] == .characterDevice)
        #expect(listed["pipe"] == .fifo)
        #expect(listed["sock"] == .socket)
    }

    @Test func listsHardLinksWithTheirTargets() throws {
        var links: [String: [UInt8]] = [:]
        try ArchiveEntries.forEach(in: Self.hostile.appendingPathComponent("hardlink-escape-dotdot.tar")) { entry, _ in
            if entry.kind == .hardLink { links[entry.displayPath] = entry.hardLinkTarget }
        }
        #expect(links == ["h": Array("../FileWrapperKit-hostile-target".utf8)])
    }

    @Test func anEncryptedEntryIsListedAndItsContentsRefused() throws {
        var kinds: [String: Bool] = [:]
        try ArchiveEntries.forEach(in: Self.hostile.appendingPathComponent("encrypted.zip")) { entry, contents in
            kinds[entry.displayPath] = entry.isEncrypted
            if entry.isEncrypted {
                let error = #expect(throws: ArchiveError.self) { try contents.forEachBlock { _ in } }
                #expect(error?.code == .encrypted)
            }
        }
        #expect(kinds["secret.txt"] == true)
    }

    @Test func theEntriesLimitIsEnforced() throws {
        let url = Self.hostile.appendingPathComponent("too-many-entries.tar.gz")
        var count = 0
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveEntries.forEach(in: url, limits: ArchiveReadLimits(maxEntries: 1000)) { _, _ in count += 1 }
        }
        #expect(error.code == .limitExceeded)
        #expect(error.archive == url.path)
        #expect(error.limit == .maxEntries)
        #expect(count == 1000)
    }

    @Test func theBytesLimitCountsContentsTheVisitorDidNotRead() throws {
        let data = try ArchiveWriter.data(for: Self.tree(), options: ArchiveWriteOptions(format: .tarGzip))
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveEntries.forEach(in: data, limits: ArchiveReadLimits(maxBytes: 100_000)) { _, _ in }
        }
        #expect(error.code == .limitExceeded && error.limit == .maxBytes)
        #expect(error.entry == "dir/b.bin")
    }

    @Test(arguments: ["corrupt-crc.zip", "corrupt-gzip.tar.gz", "truncated.tar", "truncated.tar.gz"])
    func damagedContentsAreAnErrorEvenUnread(fixture: String) throws {
        let url = Self.hostile.appendingPathComponent(fixture)
        let error = try #require(throws: ArchiveError.self) { try ArchiveEntries.forEach(in: url) { _, _ in } }
        #expect(error.archive == url.path)
        #expect(error.code == .corrupt)
    }

    @Test func withoutCheckingContentsUnreadDataIsSkipped() throws {
        // corrupt-crc.zip's data is intact but its CRC is wrong: only reading the data finds out.
        let url = Self.hostile.appendingPathComponent("corrupt-crc.zip")
        var names: [String] = []
        try ArchiveEntries.forEach(in: url, checkingContents: false) { entry, _ in names.append(entry.displayPath) }
        #expect(names.contains("story.txt"))
        #expect(throws: ArchiveError.self) { try ArchiveEntries.forEach(in: url) { _, _ in } }
    }

    @Test func aFormatLeftOutIsNamedInTheError() throws {
        // An ar archive: the format is known to libarchive but not read by default.
        let data = Data("!<arch>\nfile.txt/       0           0     0     100644  6         `\nhello\n".utf8)
        let error = try #require(throws: ArchiveError.self) { try ArchiveEntries.forEach(in: data, name: "lib.a") { _, _ in } }
        #expect(error.code == .unsupportedFormat)
        #expect(error.description.hasPrefix("lib.a: the archive is ar, which this reader leaves out"))
        var names: [String] = []
        try ArchiveEntries.forEach(in: data, formats: [.standard, .ar]) { entry, _ in names.append(entry.displayPath) }
        #expect(names == ["file.txt"])
    }
}
