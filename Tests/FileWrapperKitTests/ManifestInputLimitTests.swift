import Foundation
import Testing
@testable import FileWrapperKit

/// Issue 33, manifests as input: every manifest reader (JSON, JSON Lines,
/// mtree) refuses what passes ``ManifestReadLimits``, each shape built
/// here one past a lowered limit, with a ``ManifestError`` that names the
/// file, the line or entry, and the limit; and sums of declared sizes are
/// checked, never a trap.
@Suite struct ManifestInputLimitTests {
    /// A file entry of each format, at `path` with `size`.
    enum Shape {
        static func json(_ paths: [String], sizes: [Int64]? = nil) -> Data {
            var text = #"{"format":"fwk-manifest","version":1,"source":{"kind":"bundle","name":"t"},"entries":["#
            text += #"{"path":"","kind":"directory"}"#
            for (index, path) in paths.enumerated() {
                text += #",{"path":"\#(path)","kind":"file","size":\#(sizes?[index] ?? 1)}"#
            }
            return Data((text + "]}\n").utf8)
        }

        static func jsonLines(_ paths: [String], sizes: [Int64]? = nil, declaring count: Int? = nil) -> Data {
            var text = #"{"format":"fwk-manifest-lines","version":1,"source":{"kind":"bundle","name":"t"},"entries":\#(count ?? paths.count + 1)}"# + "\n"
            text += #"{"path":"","kind":"directory"}"# + "\n"
            for (index, path) in paths.enumerated() {
                text += #"{"path":"\#(path)","kind":"file","size":\#(sizes?[index] ?? 1)}"# + "\n"
            }
            return Data(text.utf8)
        }

        static func mtree(_ paths: [String], sizes: [Int64]? = nil) -> Data {
            var text = "#mtree\n. type=dir\n"
            for (index, path) in paths.enumerated() {
                text += "./\(path) type=file size=\(sizes?[index] ?? 1)\n"
            }
            return Data(text.utf8)
        }

        static func all(_ paths: [String], sizes: [Int64]? = nil) -> [(name: String, data: Data)] {
            [("t.json", json(paths, sizes: sizes)), ("t.jsonl", jsonLines(paths, sizes: sizes)), ("t.mtree", mtree(paths, sizes: sizes))]
        }
    }

    /// The error reading `data` within `limits` throws; fails the test when it reads.
    static func refusal(_ data: Data, name: String, limits: ManifestReadLimits) -> ManifestError? {
        do {
            _ = try Manifest(decoding: data, name: name, limits: limits)
            Issue.record("\(name) was read within \(limits)")
            return nil
        } catch let error as ManifestError {
            return error
        } catch {
            Issue.record("\(name): \(error)")
            return nil
        }
    }

    @Test func oneEntryPastTheLimitIsRefusedInEachFormat() throws {
        let paths = (1...1_000).map { "f\($0)" }
        let limits = ManifestReadLimits(maxEntries: 1_000)
        for (name, data) in Shape.all(paths) {
            let error = try #require(Self.refusal(data, name: name, limits: limits))
            #expect(error.file == name)
            #expect(error.limit == .maxEntries, "\(error)")
            #expect(error.description.contains("1000"), "\(error)")
            // The root and 1,000 files are 1,001 entries: a limit of 1,001 reads them.
            let manifest = try Manifest(decoding: data, name: name, limits: ManifestReadLimits(maxEntries: 1_001))
            #expect(manifest.entries.count == 1_001)
        }
    }

    /// JSON entries are counted on the bytes before the document is
    /// parsed (which takes 3 KB an entry): a file cut off after entry
    /// 1,001 is refused for the limit, not for its syntax.
    @Test func jsonEntriesAreCountedBeforeTheDocumentIsParsed() throws {
        var text = String(decoding: Shape.json((1...1_000).map { "f\($0)" }), as: UTF8.self)
        text.removeLast(3)
        let error = try #require(Self.refusal(Data(text.utf8), name: "c.json", limits: ManifestReadLimits(maxEntries: 1_000)))
        #expect(error.limit == .maxEntries, "\(error)")
        #expect(error.message == "\"entries\" holds more than the limit of 1000 entries")
        // Strings with brackets, commas and escaped quotes are skipped whole.
        let tricky = (1...1_000).map { "f\($0),[{\\\",\\\"" }
        _ = try Manifest(decoding: Shape.json(tricky), name: "t.json", limits: ManifestReadLimits(maxEntries: 1_001))
    }

    @Test func aJSONLinesHeaderOverTheLimitIsRefusedAtItsLine() throws {
        let error = try #require(Self.refusal(
            Shape.jsonLines(["a"], declaring: 3_000_000), name: "h.jsonl", limits: ManifestReadLimits(maxEntries: 1_000)))
        #expect(error.limit == .maxEntries)
        #expect(error.message.hasPrefix("line 1: "), "\(error)")
        // A header that understates its entries does not lift the limit either.
        let lying = try #require(Self.refusal(
            Shape.jsonLines((1...1_000).map { "f\($0)" }, declaring: 10), name: "l.jsonl", limits: ManifestReadLimits(maxEntries: 1_000)))
        #expect(lying.limit == .maxEntries)
        #expect(lying.message.hasPrefix("line 1002: "), "\(lying)")
    }

    @Test func aPathOverTheDepthLengthOrNameLimitIsRefusedInEachFormat() throws {
        let cases: [(path: String, limits: ManifestReadLimits, limit: ManifestReadLimits.Limit)] = [
            (Array(repeating: "a", count: 101).joined(separator: "/"), ManifestReadLimits(maxDepth: 100), .maxDepth),
            (String(repeating: "b", count: 1_001), ManifestReadLimits(maxPathLength: 1_000), .maxPathLength),
            ("c/" + String(repeating: "n", count: 256), ManifestReadLimits(), .maxNameLength),
        ]
        for (path, limits, limit) in cases {
            for (name, data) in Shape.all([path]) {
                let error = try #require(Self.refusal(data, name: name, limits: limits))
                #expect(error.limit == limit, "\(name): \(error)")
                #expect(error.entry == path, "\(name): \(error)")
                #expect(error.message.hasPrefix(name.hasSuffix(".json") ? "entry 2: " : "line 3: "), "\(name): \(error)")
            }
        }
        // One level, byte or name byte less is read.
        for (name, data) in Shape.all([Array(repeating: "a", count: 100).joined(separator: "/")]) {
            _ = try Manifest(decoding: data, name: name, limits: ManifestReadLimits(maxDepth: 100))
        }
    }

    @Test func aLinkTargetOverTheLimitIsRefused() throws {
        let target = String(repeating: "t", count: 101)
        let json = Data((#"{"format":"fwk-manifest","version":1,"source":{"kind":"bundle","name":"t"},"entries":["#
            + #"{"path":"","kind":"directory"},{"path":"l","kind":"symlink","target":"\#(target)"}]}"#).utf8)
        let mtree = Data("#mtree\n. type=dir\n./l type=link link=\(target)\n".utf8)
        for (name, data) in [("l.json", json), ("l.mtree", mtree)] {
            let error = try #require(Self.refusal(data, name: name, limits: ManifestReadLimits(maxLinkLength: 100)))
            #expect(error.limit == .maxLinkLength, "\(error)")
            #expect(error.entry == "l")
        }
    }

    /// Relative mtree names: each directory line enters it, so 101 of them
    /// nest 101 deep; the line that passes the depth limit is named, and
    /// `..` leaves a directory as before.
    @Test func nestedRelativeDirectoriesInMtreeAreRefusedAtTheLineThatPassesTheDepth() throws {
        let nested = "#mtree\n" + String(repeating: "d type=dir\n", count: 101)
        let error = try #require(Self.refusal(Data(nested.utf8), name: "n.mtree", limits: ManifestReadLimits(maxDepth: 100)))
        #expect(error.limit == .maxDepth)
        #expect(error.message.hasPrefix("line 102: "), "\(error)")

        let climbing = "#mtree\n" + (0...100).map { "d\($0) type=dir\ne type=dir\n..\n..\n" }.joined()
        let manifest = try Manifest(decoding: Data(climbing.utf8), name: "c.mtree", limits: ManifestReadLimits(maxDepth: 2))
        #expect(manifest.entries.count == 1 + 2 * 101)
        #expect(manifest.entry(at: Array("d100/e".utf8))?.kind == .directory)
    }

    /// The folders that paths only imply count as entries: ten paths 100
    /// deep imply 990 folders, which with the ten files and the root pass
    /// a limit of 1,000.
    @Test func impliedFoldersCountAsEntries() throws {
        let paths = (0..<10).map { index in (["d\(index)"] + Array(repeating: "a", count: 98) + ["f"]).joined(separator: "/") }
        for (name, data) in Shape.all(paths) {
            let error = try #require(Self.refusal(data, name: name, limits: ManifestReadLimits(maxEntries: 1_000)))
            #expect(error.limit == .maxEntries, "\(name): \(error)")
            #expect(error.file == name)
            let manifest = try Manifest(decoding: data, name: name, limits: ManifestReadLimits(maxEntries: 1_001))
            #expect(manifest.entries.count == 1_001)
        }
    }

    /// Sizes whose sum passes `Int64.max` are refused, even with no limit
    /// on bytes; sizes over a lowered limit too.
    @Test func declaredSizesAreSummedWithCheckedArithmetic() throws {
        for (name, data) in Shape.all(["a", "b"], sizes: [.max, .max]) {
            let error = try #require(Self.refusal(data, name: name, limits: ManifestReadLimits(maxBytes: .max)))
            #expect(error.limit == .maxBytes, "\(name): \(error)")
            #expect(error.entry == "b", "\(name): \(error)")
        }
        for (name, data) in Shape.all(["a", "b"], sizes: [600, 401]) {
            let error = try #require(Self.refusal(data, name: name, limits: ManifestReadLimits(maxBytes: 1_000)))
            #expect(error.limit == .maxBytes, "\(name): \(error)")
            _ = try Manifest(decoding: data, name: name, limits: ManifestReadLimits(maxBytes: 1_001))
        }
    }

    /// `/set` defaults are kept once, whatever the entries: keywords a
    /// manifest has no field for are never kept, and those it has apply as before.
    @Test func setDefaultsApplyToTheEntriesAfterThem() throws {
        let text = "#mtree\n/set type=file mode=0600 size=3 " + (0..<1_000).map { "k\($0)=v" }.joined(separator: " ") + "\n"
            + ". type=dir\na\n/unset size\nb mode=0644\n/unset all\nc type=dir\n"
        let manifest = try Manifest(decoding: Data(text.utf8), name: "s.mtree")
        let a = try #require(manifest.entry(at: Array("a".utf8)))
        #expect(a.kind == .file && a.permissions == 0o600 && a.size == 3)
        let b = try #require(manifest.entry(at: Array("b".utf8)))
        #expect(b.kind == .file && b.permissions == 0o644 && b.size == nil)
        let c = try #require(manifest.entry(at: Array("c".utf8)))
        #expect(c.kind == .directory && c.permissions == nil)
    }

    @Test func theDescriptionNamesTheLimitAndCutsALongEntry() {
        let error = ManifestError(file: "m.json", entry: String(repeating: "x", count: 5_000), message: "entry 2: too long", limit: .maxPathLength)
        #expect(error.description == "m.json: \"" + String(repeating: "x", count: 200) + "...(5000 bytes)\": entry 2: too long (maxPathLength)")
        #expect(error.description { "(raise it with --\($0))" }.hasSuffix("(raise it with --maxPathLength)"))
    }
}
