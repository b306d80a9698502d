import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Reading into memory refuses what cannot be a safe tree, naming the
/// archive and the entry. The archives are made by Python's tarfile, a
/// writer other than ours.
@Suite(.startsProcesses) struct ArchiveReaderRefusalTests {
    /// A tar made by Python from `(name, kind, target)` members.
    static func pythonTar(_ members: [(String, String, String)]) throws -> Data {
        let script = """
            import io, sys, tarfile, json
            buffer = io.BytesIO()
            with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
                for name, kind, target in json.loads(sys.argv[1]):
                    info = tarfile.TarInfo(name)
                    if kind == "file":
                        info.size = len(target)
                        tar.addfile(info, io.BytesIO(target.encode()))
                        continue
                    info.type = {"dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE, "fifo": tarfile.FIFOTYPE, "chr": tarfile.CHRTYPE}[kind]
                    info.linkname = target
                    tar.addfile(info)
            sys.stdout.buffer.write(buffer.getvalue())
            """
        let json = String(decoding: try JSONSerialization.data(withJSONObject: members.map { [$0.0, $0.1, $0.2] }), as: UTF8.self)
        let python = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, json])
        try #require(python.status == 0, "\(python.stderr)")
        return Data(python.stdoutBytes)
    }

    @Test(arguments: [
        ([("/etc/evil", "file", "x")], "/etc/evil", ArchiveError.Code.unsafePath),
        ([("a/../../evil", "file", "x")], "a/../../evil", .unsafePath),
        ([("a.txt", "file", "x"), ("./a.txt", "file", "y")], "./a.txt", .duplicateEntry),
        ([("x", "file", "x"), ("x/y", "file", "y")], "x/y", .duplicateEntry),
        ([("fifo", "fifo", "")], "fifo", .unsupportedEntry),
        ([("tty", "chr", "")], "tty", .unsupportedEntry),
        ([("link", "hardlink", "../outside")], "link", .unsafePath),
        ([("caf\u{E9}", "file", "x"), ("cafe\u{301}", "file", "y")], "cafe\u{301}", .duplicateEntry),
    ] as [([(String, String, String)], String, ArchiveError.Code)])
    func isRefusedNamingTheEntry(members: [(String, String, String)], entry: String, code: ArchiveError.Code) throws {
        let data = try Self.pythonTar(members)
        let error = try #require(throws: ArchiveError.self) { try ArchiveReader.fileWrapper(from: data, name: "hostile.tar") }
        #expect(error.code == code)
        #expect(error.entry == entry)
        #expect(String(describing: error).hasPrefix("hostile.tar: \""))
    }

    @Test func limitsAreNamedInTheirErrors() throws {
        let data = try Self.pythonTar((0..<20).map { ("f\($0)", "file", String(repeating: "z", count: 1000)) })
        let entries = try #require(throws: ArchiveError.self) {
            try ArchiveReader.fileWrapper(from: data, limits: ArchiveReadLimits(maxEntries: 10))
        }
        #expect(entries.code == .limitExceeded && entries.limit == .maxEntries)
        #expect(entries.description.hasSuffix("(maxEntries)"))
        let bytes = try #require(throws: ArchiveError.self) {
            try ArchiveReader.fileWrapper(from: data, limits: ArchiveReadLimits(maxBytes: 5000))
        }
        #expect(bytes.code == .limitExceeded && bytes.limit == .maxBytes)
    }

    @Test func truncatedDataIsAnError() throws {
        let data = try ArchiveWriter.data(for: ArchiveRoundTripTests.sampleTree(), options: ArchiveWriteOptions(format: .tarGzip))
        let error = try #require(throws: ArchiveError.self) {
            try ArchiveReader.fileWrapper(from: data.prefix(data.count / 2), name: "cut.tar.gz")
        }
        #expect(error.code == .corrupt)
        #expect(String(describing: error).hasPrefix("cut.tar.gz"))
    }

    @Test func legitimateLinksAndDotSlashPathsAreAccepted() throws {
        let data = try Self.pythonTar([
            ("./App/Resources/tool", "file", "bin"), ("./App/MacOS/tool", "symlink", "../Resources/tool"),
            ("Versions/A/file", "file", "a"), ("Versions/Current", "symlink", "A"), ("Versions/B", "hardlink", "Versions/A/file"),
        ])
        let tree = try ArchiveReader.fileWrapper(from: data)
        #expect(tree.fileWrappers?["App"]?.fileWrappers?["MacOS"]?.fileWrappers?["tool"]?.symbolicLinkDestination == "../Resources/tool")
        #expect(tree.fileWrappers?["Versions"]?.fileWrappers?["B"]?.regularFileContents == Data("a".utf8))
    }
}
