@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Issue 25, item 6 (reading one member as fast as `unzip -p`): a member of
/// a zip file is read by the central directory and the local headers, then alone
/// (``MemberContents/readZipMembersByDirectory(_:in:options:_:)``, which
/// `wrapinspect cat` and `diff -p` use), with names compared as bytes and
/// the same refusals as the streamed read; what the lazy reader refuses is
/// streamed, with the streamed read's rules.
@Suite(.startsProcesses) struct ZipMemberByDirectoryTests {
    /// The bytes of `member` of `url`, as `wrapinspect cat` gets them.
    static func contents(of member: String, in url: URL) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try MemberContents.forEachBlock(ofMember: member, in: url) { bytes += $0 }
        return bytes
    }

    /// Writes a zip with Python's zipfile from `(name, contents)` pairs
    /// given as a Python literal: names exactly as given, deflated.
    static func pythonZip(_ members: String, in directory: TemporaryDirectory, name: String = "made.zip") throws -> URL {
        let zip = directory.appending(name)
        try Interop.run("python3", ["-c", """
            import sys, warnings, zipfile
            warnings.simplefilter("ignore")
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                for name, contents in \(members):
                    z.writestr(name, contents)
            """, zip.path], in: directory.url)
        return zip
    }

    @Test func aMemberIsReadWithTheCentralDirectoryAndNothingElse() throws {
        let directory = try TemporaryDirectory()
        let files = ZipContainerReadTests.documentFiles(seed: 61)
        let zip = try ZipContainerReadTests.infoZipDocument(files, in: directory)
        let archiveSize = try #require(try FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? Int)
        let (path, expected) = try #require(files.last)
        try #require(archiveSize > 5 * expected.count)

        // `wrapinspect cat`, every thread's reads of the zip seen with
        // strace (`-y` names each descriptor's file).
        let wrapinspect = try #require(BuiltProgram.url(of: "wrapinspect")).path
        let sanitizerOptions = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let result = try ChildProcess.run("/usr/bin/env", [
            "ASAN_OPTIONS=\(sanitizerOptions)detect_leaks=0", "strace", "-f", "-qq", "-y", "-s", "0",
            "-e", "trace=read,pread64,readv,preadv,mmap", "-o", "trace.txt", wrapinspect, "cat", zip.path, path,
        ], in: directory.url)
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutBytes == expected)
        var bytesRead = 0
        for line in try String(contentsOf: directory.appending("trace.txt"), encoding: .utf8).split(separator: "\n") {
            guard line.contains("<\(zip.resolvingSymlinksInPath().path)>") else { continue }
            #expect(!line.contains(" mmap("), "the zip is read, not mapped: \(line)")
            if let equals = line.range(of: " = ", options: .backwards), let count = Int(line[equals.upperBound...]) { bytesRead += count }
        }
        #expect(bytesRead > expected.count)
        // The member; the directory and the local headers (under 2 KiB
        // here); and the end record's search, up to 64 KiB, twice (the
        // index, and the check of the local headers against it).
        #expect(bytesRead < expected.count + (144 << 10), "read \(bytesRead) bytes of a \(archiveSize)-byte zip for a \(expected.count)-byte member")
    }

    @Test func namesAreComparedAsBytes() throws {
        let directory = try TemporaryDirectory()
        // KELVIN SIGN, which Swift's String == takes for "K", and a decomposed "é".
        let zip = try Self.pythonZip(#"[("\u212a.txt", b"kelvin"), ("cafe\u0301.txt", b"decomposed")]"#, in: directory)
        #expect(try Self.contents(of: "\u{212A}.txt", in: zip) == Array("kelvin".utf8))
        #expect(try Self.contents(of: "cafe\u{301}.txt", in: zip) == Array("decomposed".utf8))
        for canonicalTwin in ["K.txt", "caf\u{E9}.txt"] {
            #expect {
                try Self.contents(of: canonicalTwin, in: zip)
            } throws: { error in
                "\(error)".contains("the archive has no such member")
            }
        }
    }

    @Test func directoriesLinksAndMissingMembersAreRefusedAsTheStreamRefusesThem() throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("src")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: source.appendingPathComponent("folder/file.txt"))
        try FileManager.default.createSymbolicLink(atPath: source.appendingPathComponent("link").path, withDestinationPath: "folder/file.txt")
        let zip = directory.appending("links.zip")
        try Interop.run("zip", ["-q", "-y", "-r", zip.path, "folder", "link"], in: source)

        #expect(try Self.contents(of: "folder/file.txt", in: zip) == Array("inside".utf8))
        let refusals = [
            ("folder", "the member is a directory"),
            ("link", "the member is a symbolic link (to \"folder/file.txt\"), which is not followed"),
            ("link/file.txt", "the archive has no such member"),
            ("missing.txt", "the archive has no such member"),
        ]
        for (member, message) in refusals {
            #expect {
                try Self.contents(of: member, in: zip)
            } throws: { error in
                let text = "\(error)"
                return text.contains(zip.lastPathComponent) && text.contains(member) && text.contains(message)
            }
        }
    }

    @Test func aZipTheLazyReaderRefusesIsStreamedWithItsRules() throws {
        let directory = try TemporaryDirectory()
        // A name given twice: the lazy reader refuses it; the streamed
        // read, as extraction and the manifest, takes the last.
        let zip = try Self.pythonZip(#"[("twice.txt", b"first"), ("other.txt", b"x"), ("twice.txt", b"second")]"#, in: directory)
        #expect(throws: ArchiveError.self) { try ZipContainer.fileWrapper(contentsOf: zip) }
        #expect(try Self.contents(of: "twice.txt", in: zip) == Array("second".utf8))
    }
}
