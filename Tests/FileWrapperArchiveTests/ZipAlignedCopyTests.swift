@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Issue 25, item 6 (a save as fast as `cp`): after a member written anew
/// whose size changed, the members copied as stored land where they lay in
/// their own zip modulo a 4 KiB page (the new member's local header padded
/// with an alignment field, as `zipalign` pads), and `copy_file_range`
/// writes from 64 KiB boundaries on (the bytes before one go through
/// memory), where the kernel copies whole large folios; the members stay
/// byte-identical, and every reader reads the padded zip.
@Suite(.startsProcesses) struct ZipAlignedCopyTests {
    /// `(name, header offset)` of each member of the zip at `url`, by Python's zipfile.
    static func offsets(_ url: URL) throws -> [(name: String, offset: Int)] {
        let result = try Interop.run("python3", ["-c", """
            import sys, zipfile
            for i in zipfile.ZipFile(sys.argv[1]).infolist():
                print(i.header_offset, i.filename)
            """, url.path], in: url.deletingLastPathComponent())
        return result.stdout.split(separator: "\n").map { line in
            let fields = line.split(separator: " ", maxSplits: 1)
            return (String(fields[1]), Int(fields[0])!)
        }
    }

    /// A zip with members of odd sizes, so that their offsets fall anywhere
    /// in a page: a stored `mimetype`, a chapter to change, six stored
    /// plates of about 30 KB, another chapter.
    static func makeBook(at zip: URL) throws {
        try Interop.run("python3", ["-c", """
            import random, sys, zipfile
            random.seed(7)
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr(zipfile.ZipInfo("mimetype"), b"application/epub+zip", compress_type=zipfile.ZIP_STORED)
                z.writestr("text/chapter1.xhtml", b"<p>It was a dark night.</p>\\n" * 400)
                for index in range(6):
                    data = bytes(random.getrandbits(8) for _ in range(30011 + 977 * index))
                    z.writestr(f"images/plate{index}.bin", data, compress_type=zipfile.ZIP_STORED)
                z.writestr("text/chapter2.xhtml", b"<p>The end.</p>\\n" * 300)
            """, zip.path], in: zip.deletingLastPathComponent())
    }

    @Test func membersCopiedAfterAChangedOneKeepTheirPlaceInThePage() throws {
        let directory = try TemporaryDirectory()
        let zip = directory.appending("aligned.zip")
        try Self.makeBook(at: zip)
        let before = try Self.offsets(zip)
        let storedBefore = try StoredZipMembers.list(zip)

        let editor = try ZipArchiveEditor(contentsOf: zip)
        try editor.setContents(Data("<p>It was a bright morning, and much longer.</p>\n".utf8), at: "text/chapter1.xhtml")
        try editor.commit()

        let after = try Self.offsets(zip)
        #expect(after.map(\.name) == before.map(\.name))
        let copied = before.indices.filter { before[$0].name.hasPrefix("images/") || before[$0].name == "text/chapter2.xhtml" }
        try #require(copied.count == 7)
        for index in copied {
            #expect(after[index].offset % 4096 == before[index].offset % 4096,
                    "\(before[index].name): at \(after[index].offset), was at \(before[index].offset)")
        }
        // The copied members are as they were, local header and data.
        let storedAfter = try StoredZipMembers.list(zip)
        for index in copied { #expect(storedAfter[index] == storedBefore[index]) }

        try Interop.run("unzip", ["-tq", zip.path], in: directory.url)
        let listing = try Interop.run("bsdtar", ["-tf", zip.path], in: directory.url)
        #expect(listing.stdout.split(separator: "\n").count == before.count)
        try Interop.run("python3", ["-c", "import sys, zipfile; sys.exit(zipfile.ZipFile(sys.argv[1]).testzip() is not None)", zip.path],
                        in: directory.url)
        let tree = try ArchiveReader.fileWrapper(contentsOf: zip)
        let chapter = try #require(tree.fileWrappers?["text"]?.fileWrappers?["chapter1.xhtml"])
        #expect(chapter.regularFileContents == Data("<p>It was a bright morning, and much longer.</p>\n".utf8))
    }

    /// Every `copy_file_range` of the edit, seen with strace in the test
    /// child, writes from a 64 KiB boundary of the new zip, and reads from
    /// the same place in a page of the old one.
    @Test func theKernelCopiesFromBoundaries() throws {
        let directory = try TemporaryDirectory()
        try Self.makeBook(at: directory.appending("book.zip"))
        try Data("<p>It was a bright morning, and much longer.</p>\n".utf8).write(to: directory.appending("chapter1.xhtml"))
        let child = try #require(BuiltProgram.url(of: "fwk-test-child")).path
        let sanitizerOptions = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let result = try ChildProcess.run("/usr/bin/env", [
            "ASAN_OPTIONS=\(sanitizerOptions)detect_leaks=0", "strace", "-qq", "-y", "-s", "0",
            "-e", "trace=write,copy_file_range", "-o", "trace.txt",
            child, "edit-zip", "book.zip", "text/chapter1.xhtml", "chapter1.xhtml",
        ], in: directory.url)
        try #require(result.status == 0, "\(result.stderr)")

        // Where each call on the new zip (written beside book.zip, then
        // renamed) begins: the bytes written and copied before it.
        var position = 0
        var copies: [(source: Int, target: Int, length: Int)] = []
        for line in try String(contentsOf: directory.appending("trace.txt"), encoding: .utf8).split(separator: "\n") {
            guard line.contains(".book.zip.fwk-save-"), let equals = line.range(of: " = ", options: .backwards),
                  let count = Int(line[equals.upperBound...]) else { continue }
            if line.hasPrefix("copy_file_range(") {
                let source = try #require(Int(line.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }), "\(line)")
                copies.append((source, position, count))
            }
            position += count
        }
        let size = try FileManager.default.attributesOfItem(atPath: directory.appending("book.zip").path)[.size] as? Int
        #expect(position == size)
        try #require(copies.count >= 2, "\(copies)")
        for copy in copies {
            #expect(copy.target % (64 << 10) == 0, "copy_file_range writes at \(copy.target)")
            #expect((copy.target - copy.source) % 4096 == 0, "copy_file_range reads at \(copy.source) for \(copy.target)")
        }
        try Interop.run("unzip", ["-tq", "book.zip"], in: directory.url)
    }
}
