import Foundation
import Testing
import TestSupport

/// Issue 33, item 4: a name holding a bidirectional control or an
/// invisible character (the Trojan Source trick) prints escaped,
/// `\u{202E}`, in every text output of a name (dump, diff, unpack's
/// messages, errors); JSON keeps it exact.
@Suite struct HiddenCharacterNameTests {
    /// Every character escaped: the bidirectional embeddings, overrides,
    /// isolates and marks, the zero-width ones, the byte order mark, the
    /// line and paragraph separators.
    static let hidden: [UInt32] = Array(0x202A...0x202E) + Array(0x2066...0x2069) + [0x200E, 0x200F]
        + Array(0x200B...0x200D) + [0xFEFF, 0x2028, 0x2029]

    static func name(_ value: UInt32) -> String {
        "a" + String(Character(Unicode.Scalar(value)!)) + "b.txt"
    }

    static func escaped(_ value: UInt32) -> String {
        "a\\u{" + String(value, radix: 16, uppercase: true) + "}b.txt"
    }

    /// A folder `src` with one file for each hidden character.
    static func tree() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for value in hidden {
            try Disk.write("x", to: directory.appending("src/" + name(value)))
        }
        try Disk.write("y", to: directory.appending("other/plain.txt"))
        return directory
    }

    /// Whether `text` holds any hidden character raw.
    static func holdsRaw(_ text: String) -> Bool {
        text.unicodeScalars.contains { hidden.contains($0.value) }
    }

    @Test func dumpEscapesThemAndItsJSONKeepsThem() throws {
        let directory = try Self.tree()
        let text = try WrapInspectProcess.run(["dump", "src"], in: directory.url)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(!Self.holdsRaw(text.stdout))
        for value in Self.hidden {
            #expect(text.stdout.contains(Self.escaped(value)), "U+\(String(value, radix: 16))")
        }
        let json = try WrapInspectProcess.run(["dump", "--json", "src"], in: directory.url)
        #expect(json.status == 0, "\(json.stderr)")
        let paths = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let entries = (paths?["entries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        let expected = Self.hidden.map(Self.name)
        // Compared as bytes: String == would take some of them for equal.
        #expect(Set(entries.map { Array($0.utf8) }) == Set(([""] + expected).map { Array($0.utf8) }))
    }

    @Test func diffEscapesThemAndItsJSONKeepsThem() throws {
        let directory = try Self.tree()
        let text = try WrapInspectProcess.run(["diff", "other", "src"], in: directory.url)
        #expect(text.status == 1, "\(text.stderr)")
        #expect(!Self.holdsRaw(text.stdout))
        #expect(text.stdout.contains(Self.escaped(0x202E)), "\(text.stdout)")
        let json = try WrapInspectProcess.run(["diff", "--json", "other", "src"], in: directory.url)
        #expect(json.status == 1, "\(json.stderr)")
        #expect(json.stdout.unicodeScalars.contains("\u{202E}"))
        #expect(!json.stdout.contains(Self.escaped(0x202E)))
    }

    /// An unpack's summary, and the error that refuses an entry, escape them.
    @Test func unpackAndItsErrorsEscapeThem() throws {
        let directory = try Self.tree()
        let packed = try WrapInspectProcess.run(["pack", "src", "T.tar"], in: directory.url)
        try #require(packed.status == 0, "\(packed.stderr)")
        let unpacked = try WrapInspectProcess.run(["unpack", "T.tar", "out"], in: directory.url)
        #expect(unpacked.status == 0, "\(unpacked.stderr)")
        #expect(!Self.holdsRaw(unpacked.stdout + unpacked.stderr))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.appending("out").path)
        #expect(Set(names.map { Array($0.utf8) }) == Set(Self.hidden.map { Array(Self.name($0).utf8) }), "the names on disk are exact")

        // A tar whose entry leaves the tree through a name with an override.
        let script = """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as tar:
                info = tarfile.TarInfo("../a\\u202Eb.txt")
                info.size = 1
                tar.addfile(info, io.BytesIO(b"x"))
            """
        let made = try ChildProcess.run("/bin/sh", ["-c", "exec python3 -c \"$0\" \"$@\"", script, directory.appending("evil.tar").path])
        try #require(made.status == 0, "\(made.stderr)")
        let refused = try WrapInspectProcess.run(["unpack", "evil.tar", "evil"], in: directory.url)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("../a\\u{202E}b.txt"), "\(refused.stderr)")
        #expect(!Self.holdsRaw(refused.stderr))
        let dumped = try WrapInspectProcess.run(["dump", "evil.tar"], in: directory.url)
        #expect(!Self.holdsRaw(dumped.stdout + dumped.stderr))
    }
}
