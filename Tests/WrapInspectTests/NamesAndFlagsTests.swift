import Foundation
import Testing
import TestSupport

/// Issue 23, items 8 and 9: every ending tar and bsdtar users type packs
/// in its format, flags that would do nothing are errors, a mistyped
/// command gets "did you mean", and `--version` answers.
@Suite struct NamesAndFlagsTests {
    static func tree() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try Disk.write("application/epub+zip", to: directory.appending("src/mimetype"))
        try Disk.write(String(repeating: "chapter ", count: 500), to: directory.appending("src/OEBPS/one.xhtml"))
        return directory
    }

    /// Each ending and the first bytes of the stream it asks for.
    @Test(arguments: [
        ("x.tgz", [0x1F, 0x8B]), ("x.taz", [0x1F, 0x8B]), ("x.tbz", Array("BZh".utf8)), ("x.tbz2", Array("BZh".utf8)),
        ("x.txz", [0xFD, 0x37, 0x7A, 0x58, 0x5A]), ("x.tzst", [0x28, 0xB5, 0x2F, 0xFD]), ("x.tar.zstd", [0x28, 0xB5, 0x2F, 0xFD]),
        ("x.cpio.bz2", Array("BZh".utf8)), ("x.cpio.xz", [0xFD, 0x37, 0x7A, 0x58, 0x5A]), ("x.cpio.zst", [0x28, 0xB5, 0x2F, 0xFD]),
        ("x.tlz", [0x5D, 0x00, 0x00]), ("x.tar.lzma", [0x5D, 0x00, 0x00]), ("x.epub", Array("PK".utf8)),
    ] as [(String, [UInt8])])
    func everyEndingPacksInItsFormat(archive: String, magic: [UInt8]) throws {
        let directory = try Self.tree()
        let packed = try WrapInspectProcess.run(["pack", "src", archive], in: directory.url)
        #expect(packed.status == 0, "\(packed.stderr)")
        let bytes = Array(try Data(contentsOf: directory.appending(archive)))
        #expect(Array(bytes.prefix(magic.count)) == magic)
        let fromArchive = try WrapInspectProcess.run(["digest", archive], in: directory.url)
        let fromFolder = try WrapInspectProcess.run(["digest", "src"], in: directory.url)
        #expect(fromArchive.status == 0 && fromArchive.stdout == fromFolder.stdout, "\(fromArchive.stderr)")
        if archive.hasSuffix(".epub") {
            // The first local header: method 0 (stored), name "mimetype".
            #expect(bytes[8] == 0 && bytes[9] == 0, "mimetype is stored")
            #expect(Array(bytes[30..<38]) == Array("mimetype".utf8))
        }
    }

    @Test(arguments: ["tgz", "txz", "tlz", "epub", "cpio.zst"])
    func endingsNameFormatsToo(format: String) throws {
        let directory = try Self.tree()
        let packed = try WrapInspectProcess.run(["pack", "--format", format, "src", "out"], in: directory.url)
        #expect(packed.status == 0, "\(packed.stderr)")
    }

    @Test(arguments: [
        (["pack", "--first-stored", "nope", "src", "x.zip"], "wrapinspect: --first-stored nope: src has no top-level file named nope"),
        (["pack", "--first-stored", "OEBPS", "src", "x.zip"], "wrapinspect: --first-stored OEBPS: src has no top-level file named OEBPS"),
        (["pack", "src/OEBPS", "x.epub"], "wrapinspect: an EPUB stores its mimetype first, and src/OEBPS has no top-level file named mimetype"),
    ])
    func aFlagThatWouldDoNothingIsAnError(arguments: [String], message: String) throws {
        let directory = try Self.tree()
        let result = try WrapInspectProcess.run(arguments, in: directory.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(try Disk.names(in: directory.url) == ["src"], "nothing written")
    }

    @Test(arguments: [
        ("dupm", "wrapinspect: 'dupm' is not a wrapinspect command; did you mean 'dump'?\nUsage: wrapinspect <subcommand>"),
    ])
    func aMistypedCommandGetsDidYouMean(typed: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let result = try WrapInspectProcess.run([typed, "x"], in: directory.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }

    @Test func versionPrintsToStandardOutput() throws {
        let directory = try TemporaryDirectory()
        let result = try WrapInspectProcess.run(["--version"], in: directory.url)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stdout)")
        #expect(lines.first?.hasPrefix("wrapinspect ") == true, "\(result.stdout)")
        #expect(lines.first?.split(separator: " ").last?.split(separator: ".").count == 3, "\(result.stdout)")
        // Which inflater the build uses: ISA-L where libisal-dev was there, zlib otherwise.
        #expect(lines.last?.hasPrefix("inflate: ISA-L 2.") == true || lines.last?.hasPrefix("inflate: zlib 1.") == true, "\(result.stdout)")
    }
}

/// Issue 23, item 9: the bash completion script that wrapinspect writes
/// (`--generate-completion-script bash`, which `make install` installs)
/// completes commands, the values of --format, --via and --ignore, and file
/// names where a path goes, exercised in bash as a user's Tab would.
@Suite struct CompletionTests {
    @Test(arguments: [
        (["wrapinspect", "un"], ["unpack"]),
        (["wrapinspect", "pack", "--format", "tar.z"], ["tar.zst"]),
        (["wrapinspect", "pack", "--format", "tb"], ["tbz", "tbz2"]),
        (["wrapinspect", "verify", "--via", "bu"], ["bundle"]),
        (["wrapinspect", "diff", "--ignore", "mo"], ["mode"]),
        (["wrapinspect", "dump", "Tra"], ["Travel.zip", "Travel.journal"]),
        (["wrapinspect", "unpack", "Travel.zip", "Tra"], ["Travel.journal"]),
    ])
    func bashCompletes(words: [String], expected: [String]) throws {
        let directory = try TemporaryDirectory()
        try Disk.write("{}", to: directory.appending("Travel.journal/index.json"))
        try Disk.write("zip", to: directory.appending("Travel.zip"))
        let executable = try #require(WrapInspectProcess.executableURL)
        let script = try WrapInspectProcess.run(["--generate-completion-script", "bash"], in: directory.url)
        try #require(script.status == 0, "\(script.stderr)")
        try script.stdout.write(to: directory.appending("completion.bash"), atomically: false, encoding: .utf8)
        // What bash does on Tab: COMP_* set, the function called with the command, the word and the one before.
        let tab = """
            source ./completion.bash
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            COMPREPLY=(); _wrapinspect "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try ChildProcess.run(
            "/bin/bash", ["-c", tab, "bash"] + words, in: directory.url,
            environment: ["PATH": executable.deletingLastPathComponent().path + ":/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.filter { !$0.isEmpty }.map(String.init).sorted() == expected.sorted(), "\(result.stdout)")
    }
}
