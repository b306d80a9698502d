@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// Inputs that `Tools/run-fuzzers.sh` found (`Fixtures/Fuzz/TARGET`), each
/// read as its fuzz target reads it.
@Suite(.startsProcesses) struct FuzzRegressionTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Fuzz")
    static let directory = fixtures.appendingPathComponent("fuzz-archive")

    /// A zip whose symlink `symlink` points at `../\xC0arget`, a target that
    /// is not UTF-8. The FileWrapper reader made it a `String`, which put
    /// U+FFFD in place of the byte, so the two readers gave two tree digests.
    @Test func symlinkTargetThatIsNotUTF8IsKeptByteForByte() throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent("symlink-target-not-utf8.zip"))
        let wrapper = try ArchiveReader.fileWrapper(from: data, name: "fuzz")
        let target = Array("../".utf8) + [0xC0] + Array("arget".utf8)
        #expect(wrapper.fileWrappers?["symlink"]?.symbolicLinkDestinationBytes == target)
        let archived = try Manifest(archiveData: data, name: "fuzz")
        #expect(archived.entry(at: Array("symlink".utf8))?.linkTarget == target)
        #expect(try Manifest(wrapper, name: "fuzz").treeDigest == archived.treeDigest)
    }

    /// Tars that libarchive does not read as tars, and that our plain tar
    /// reader read: the first header, an extended one, with 0xB0 as the
    /// first byte of its mode field (libarchive checks the number fields of
    /// the first header to take a file for a tar: "Unrecognized archive
    /// format"); and a first header whose name field, past the name's NUL,
    /// makes its first bytes look like an .lzma stream, which our reader
    /// recognises by them ("Lzma library error"). Our reader now checks both
    /// and leaves such files to libarchive.
    @Test(arguments: [("extended-header-mode-not-octal.tar", ArchiveError.Code.unrecognizedFormat),
                      ("name-looks-like-lzma.tar", .corrupt)])
    func aTarThatLibarchiveDoesNotReadAsOneIsLeftToIt(name: String, code: ArchiveError.Code) throws {
        let archive = Self.fixtures.appendingPathComponent("fuzz-plain-tar/\(name)")
        #expect(PlainTarReader.opening(archive, formats: .standard) == nil)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-regression-\(UUID().uuidString)")
        #expect { try ArchiveUnpacker.unpack(archiveAt: archive, to: destination) } throws: { error in
            (error as? ArchiveError)?.code == code
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    /// The archives of `fuzz-unpack`'s programs kept as fixtures
    /// (`Fixtures/Fuzz/fuzz-unpack/ARCHIVE`, written with `FUZZ_UNPACK_SAVE`
    /// from `ARCHIVE.program`, the libFuzzer input, which also seeds its
    /// corpus). `kelvin-escape` and `kelvin-chmod` are the attacks of issue 20
    /// (as `CanonicalNameAttackTests` builds them with Python) in the
    /// target's encoding and written by its writers; the target traps on both
    /// at commit 0436697 (a link out, and `w/victim` made 0755).
    static let unpackFindings: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("fuzz-unpack").path)) ?? []
        return names.filter { $0.hasSuffix(".tar") || $0.hasSuffix(".zip") }.sorted()
    }()

    /// Each is unpacked, or refused, as `fuzz-unpack` unpacks it: into
    /// `w/p/dest` beside files one and two levels up. Nothing outside the
    /// destination changes (bytes, modes, links, times, names), and no
    /// symlink in it leads out.
    @Test(arguments: unpackFindings)
    func anUnpackChangesNothingOutsideItsDestination(name: String) throws {
        let directory = try TemporaryDirectory()
        let surroundings = try SurroundingFiles(in: directory.url)
        let before = surroundings.snapshot()
        let archive = Self.fixtures.appendingPathComponent("fuzz-unpack/\(name)")

        let unpacked = (try? ArchiveUnpacker.unpack(archiveAt: archive, to: surroundings.destination)) != nil

        let after = surroundings.snapshot()
        for path in Set(before.keys).union(after.keys) where before[path] != after[path] {
            Issue.record("outside the destination, \(PathDisplay.text(path)) changed: \(String(describing: before[path])) -> \(String(describing: after[path]))")
        }
        #expect(FileManager.default.fileExists(atPath: surroundings.destination.path) == unpacked)
        guard unpacked else { return }
        let leadingOut = try Self.linksLeadingOut(of: surroundings.destination, scratch: directory.url)
        #expect(leadingOut == [])
    }

    /// The symlinks below `root` that GNU `readlink -m` resolves out of it
    /// (symlinks followed, names past a missing one taken lexically).
    static func linksLeadingOut(of root: URL, scratch: URL) throws -> [String] {
        let resolve = { (path: String) in
            try Interop.run("readlink", ["-m", path], in: scratch).stdout
                .trimmingCharacters(in: .newlines)
        }
        let top = try resolve(root.path)
        var leading: [String] = []
        var pending = [Array(root.path.utf8)]
        while let directory = pending.popLast() {
            for name in SurroundingFiles.names(in: directory) {
                let path = directory + [UInt8(ascii: "/")] + name
                var info = stat()
                guard (path + [0]).withUnsafeBufferPointer({ $0.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) } }) == 0
                else { continue }
                if info.st_mode & S_IFMT == S_IFDIR { pending.append(path) }
                guard info.st_mode & S_IFMT == S_IFLNK else { continue }
                let target = try resolve(String(decoding: path, as: UTF8.self))
                let inside = Array(target.utf8) == Array(top.utf8) || Array(target.utf8).starts(with: Array((top + "/").utf8))
                if !inside { leading.append("\(PathDisplay.text(path)) -> \(target)") }
            }
        }
        return leading
    }
}
