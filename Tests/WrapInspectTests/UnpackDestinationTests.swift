import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 23, item 1: `unpack` never replaces what no one means to lose,
/// whatever `--force` says, and without DESTINATION names a new folder
/// after the archive.
@Suite struct UnpackDestinationTests {
    /// A folder `work/sub` holding two files, a zip of another small tree
    /// in `work`, and the names of what must survive.
    struct Work {
        let directory: TemporaryDirectory
        var work: URL { directory.appending("work") }
        var sub: URL { directory.appending("work/sub") }
        let kept: [URL]

        init(_ name: String = #function) throws {
            directory = try TemporaryDirectory(name)
            try Disk.write("tree", to: directory.appending("src/inside.txt"))
            kept = [directory.appending("work/sub/one.txt"), directory.appending("work/sub/deeper/two.txt"),
                    directory.appending("work/beside.txt")]
            for file in kept { try Disk.write(file.lastPathComponent, to: file) }
            let packed = try WrapInspectProcess.run(["pack", "src", "work/T.zip"], in: directory.url)
            try #require(packed.status == 0, "\(packed.stderr)")
        }

        /// Throws unless every file made at the start is still there, with its contents.
        func checkNothingDeleted() throws {
            for file in kept {
                #expect(try String(contentsOf: file, encoding: .utf8) == file.lastPathComponent, "\(file.path)")
            }
            #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("T.zip").path))
        }
    }

    /// The current directory, spelled every way, and the folders above it.
    @Test(arguments: [
        (["unpack", "--force", "../T.zip", "."], "is the current directory or holds it"),
        (["unpack", "--force", "../T.zip", "./"], "is the current directory or holds it"),
        (["unpack", "--force", "../T.zip", "deeper/.."], "is the current directory or holds it"),
        (["unpack", "--force", "../T.zip", ".."], "is the current directory or holds it"),
        (["unpack", "--force", "../T.zip", "../.."], "is the current directory or holds it"),
        (["unpack", "../T.zip", "."], "is the current directory or holds it"),
        (["unpack", "--force", "../T.zip", "/"], "is the root directory"),
    ])
    func theCurrentDirectoryAndItsAncestorsAreNeverReplaced(arguments: [String], message: String) throws {
        let work = try Work()
        let result = try WrapInspectProcess.run(arguments, in: work.sub)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: ") && result.stderr.contains(message), "\(result.stderr)")
        try work.checkNothingDeleted()
        #expect(try Disk.names(in: work.work).sorted() == ["T.zip", "beside.txt", "sub"], "no temporary is left")
    }

    @Test func theCurrentDirectoryByItsAbsolutePathIsNeverReplaced() throws {
        let work = try Work()
        let result = try WrapInspectProcess.run(["unpack", "--force", "../T.zip", work.sub.path], in: work.sub)
        #expect(result.status == 2)
        #expect(result.stderr.contains("is the current directory or holds it"), "\(result.stderr)")
        try work.checkNothingDeleted()
    }

    @Test func aFolderHoldingTheArchiveIsNeverReplaced() throws {
        let work = try Work()
        let result = try WrapInspectProcess.run(["unpack", "--force", "work/T.zip", "work"], in: work.directory.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("work holds the archive being read"), "\(result.stderr)")
        try work.checkNothingDeleted()
    }

    @Test func theArchiveItselfIsNeverReplaced() throws {
        let work = try Work()
        let result = try WrapInspectProcess.run(["unpack", "--force", "T.zip", "T.zip"], in: work.work)
        #expect(result.status == 2)
        #expect(result.stderr.contains("T.zip is the archive being read"), "\(result.stderr)")
        try work.checkNothingDeleted()
    }

    /// `--force` still replaces a sibling folder, and says in `--help` what it does.
    @Test func forceReplacesAnotherFolderWholeAndSaysSo() throws {
        let work = try Work()
        let result = try WrapInspectProcess.run(["unpack", "--force", "T.zip", "sub"], in: work.work)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Disk.names(in: work.sub) == ["inside.txt"])

        let help = try WrapInspectProcess.run(["unpack", "--help"], in: work.work)
        let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("Replace DESTINATION whole if it exists: everything in it now is removed"), "\(help.stdout)")
    }

    @Test func anExistingDestinationOffersANewFolderFirst() throws {
        let work = try Work()
        let result = try WrapInspectProcess.run(["unpack", "T.zip", "sub"], in: work.work)
        #expect(result.status == 2)
        #expect(result.stderr.contains("sub already exists (unpack into a new folder, or replace it whole with --force)"), "\(result.stderr)")
        try work.checkNothingDeleted()
    }

    @Test(arguments: [("T.zip", "T"), ("Book.tar.zst", "Book"), ("x.tgz", "x"), ("a.b.cpio.gz", "a.b")])
    func withoutDestinationTheFolderIsNamedAfterTheArchive(archive: String, folder: String) throws {
        let work = try Work()
        let packed = try WrapInspectProcess.run(["pack", "src", "work/sub/\(archive)"], in: work.directory.url)
        try #require(packed.status == 0, "\(packed.stderr)")

        let result = try WrapInspectProcess.run(["unpack", "sub/\(archive)"], in: work.work)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Disk.names(in: work.work.appendingPathComponent(folder)) == ["inside.txt"])
        #expect(result.stdout.hasSuffix("unpacked into \(folder)\n"), "\(result.stdout)")
    }

    @Test func withoutDestinationANameWithoutEndingIsBadUsage() throws {
        let work = try Work()
        try FileManager.default.moveItem(at: work.work.appendingPathComponent("T.zip"), to: work.work.appendingPathComponent("T"))
        let result = try WrapInspectProcess.run(["unpack", "T"], in: work.work)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: Cannot name a folder after \"T\"; give DESTINATION."), "\(result.stderr)")
        #expect(result.stderr.contains("Usage:"), "\(result.stderr)")
    }
}

/// Issue 23, item 1: `unpack --strip-components N`, as tar takes it, on an
/// archive GNU tar wrote with a top folder, a hard link and a symlink.
@Suite struct StripComponentsTests {
    static func archive() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try Disk.write("one", to: directory.appending("project-1.0/src/a.txt"))
        try Disk.write("two", to: directory.appending("project-1.0/b.txt"))
        try FileManager.default.linkItem(at: directory.appending("project-1.0/b.txt"), to: directory.appending("project-1.0/src/b-link.txt"))
        try FileManager.default.createSymbolicLink(atPath: directory.appending("project-1.0/latest").path, withDestinationPath: "src/a.txt")
        let made = try ChildProcess.run("/usr/bin/env", ["tar", "--format=gnu", "--sort=name", "-cf", "p.tar", "project-1.0"], in: directory.url)
        try #require(made.status == 0, "\(made.stderr)")
        return directory
    }

    @Test func oneLeadingNameIsTakenOffEveryPathAndLinkTarget() throws {
        let directory = try Self.archive()
        let result = try WrapInspectProcess.run(["unpack", "--strip-components", "1", "p.tar", "Out"], in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        let out = directory.appending("Out")
        #expect(try Disk.names(in: out).sorted() == ["b.txt", "latest", "src"])
        #expect(try Disk.names(in: out.appendingPathComponent("src")).sorted() == ["a.txt", "b-link.txt"])
        #expect(Disk.inode(out.appendingPathComponent("b.txt")) == Disk.inode(out.appendingPathComponent("src/b-link.txt")), "still one file")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out.appendingPathComponent("latest").path) == "src/a.txt")
    }

    /// With 2, `b.txt` goes, and so does the hard link to it, as bsdtar skips it.
    @Test func entriesWithNoMoreNamesThanStrippedAreSkipped() throws {
        let directory = try Self.archive()
        let result = try WrapInspectProcess.run(["unpack", "--strip-components", "2", "p.tar", "Out"], in: directory.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Disk.names(in: directory.appending("Out")) == ["a.txt"])

        let deeper = try WrapInspectProcess.run(["unpack", "--strip-components", "3", "p.tar", "Empty"], in: directory.url)
        #expect(deeper.status == 0, "\(deeper.stderr)")
        #expect(try Disk.names(in: directory.appending("Empty")) == [])
    }

    @Test func aNegativeCountIsBadUsage() throws {
        let directory = try Self.archive()
        let result = try WrapInspectProcess.run(["unpack", "--strip-components=-1", "p.tar", "Out"], in: directory.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("wrapinspect: --strip-components must be 0 or more, not -1."), "\(result.stderr)")
    }
}
