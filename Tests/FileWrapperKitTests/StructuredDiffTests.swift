import Foundation
import Testing
import TestSupport
@testable import FileWrapperKit

/// JSON and property lists compared as data: changes by path, formatting
/// (key order, whitespace, XML or binary) not a change.
@Suite(.startsProcesses) struct StructuredDiffTests {
    static func diff(_ old: String, _ new: String) throws -> StructuredDiff {
        try #require(StructuredDiff.compare(old: Array(old.utf8), new: Array(new.utf8))).get()
    }

    static func lines(_ diff: StructuredDiff) -> [String] {
        diff.changes.map { change in
            switch change.kind {
            case .changed: "\(change.pointer): \(change.old!.summary()) -> \(change.new!.summary())"
            case .added: "+ \(change.pointer): \(change.new!.summary())"
            case .removed: "- \(change.pointer): \(change.old!.summary())"
            }
        }
    }

    @Test func keyOrderAndWhitespaceAreFormatting() throws {
        let diff = try Self.diff(#"{"b": [1, 2.0, {"x": null}], "a": "s"}"#, "{\n  \"a\" : \"s\",\n  \"b\" : [ 1.0, 2, { \"x\" : null } ]\n}\n")
        #expect(diff.syntax == .json)
        #expect(diff.isFormattingOnly)
    }

    @Test func changesAreListedByPath() throws {
        let diff = try Self.diff(
            #"{"pages": [{"title": "a"}, {"title": "b", "tags": ["x"]}], "legacy": true, "name/with~": 1}"#,
            #"{"pages": [{"title": "a"}, {"title": "B", "tags": ["x", "y"]}, {}], "version": 2, "name/with~": 1.5}"#)
        #expect(Self.lines(diff) == [
            "- /legacy: true",
            "/name~1with~0: 1 -> 1.5",
            "+ /pages/1/tags/1: \"y\"",
            "/pages/1/title: \"b\" -> \"B\"",
            "+ /pages/2: {}",
            "+ /version: 2",
        ])
    }

    /// U+212A KELVIN SIGN and "K" are one `String` key to Foundation's
    /// reader; as bytes they are two keys.
    @Test func keysAreComparedAsBytes() throws {
        let diff = try Self.diff("{\"\u{212A}\": 1}", #"{"K": 1}"#)
        #expect(Self.lines(diff) == ["+ /K: 1", "- /\u{212A}: 1"])
    }

    @Test func whatIsNotJSONOrAPropertyListIsNotCompared() {
        #expect(StructuredDiff.compare(old: Array("plain text".utf8), new: Array("{}".utf8)) == nil)
        #expect(StructuredDiff.compare(old: Array("{\"a\": 1".utf8), new: Array("{}".utf8)) == nil, "unterminated")
        #expect(StructuredDiff.compare(old: Array("{\"a\": 01}".utf8), new: Array("{}".utf8)) == nil, "a leading zero")
        #expect(StructuredDiff.compare(old: Array("\"\\ud800\"".utf8), new: Array("{}".utf8)) == nil, "not an object or array")
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(StructuredDiff.compare(old: Array(deep.utf8), new: Array("[]".utf8))?.refusal?.reason == .tooDeep(limit: StructuredValue.maxDepth),
                "deeper than the limit, refused without a crash")
    }

    /// An XML property list rewritten as binary by Python's plistlib is
    /// the same data; a changed value is a change.
    @Test func aPropertyListInXMLAndInBinaryIsTheSameData() throws {
        let directory = try TemporaryDirectory()
        let script = """
            import plistlib, sys, datetime
            value = {"Title": "Porto", "Pages": [1, 2.5, True], "Cover": b"\\x89PNG", "Date": datetime.datetime(2026, 5, 3, 10, 0, 0)}
            open(sys.argv[1], "wb").write(plistlib.dumps(value, fmt=plistlib.FMT_XML))
            open(sys.argv[2], "wb").write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
            value["Title"] = "Lisbon"
            open(sys.argv[3], "wb").write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
            """
        let paths = ["a.plist", "b.plist", "c.plist"].map { directory.appending($0).path }
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", script] + paths)
        try #require(result.status == 0, "\(result.stderr)")
        let (xml, binary, changed) = try (Array(Data(contentsOf: URL(fileURLWithPath: paths[0]))),
                                          Array(Data(contentsOf: URL(fileURLWithPath: paths[1]))),
                                          Array(Data(contentsOf: URL(fileURLWithPath: paths[2]))))
        let same = try #require(StructuredDiff.compare(old: xml, new: binary)).get()
        #expect(same.syntax == .propertyList)
        #expect(same.isFormattingOnly)
        let different = try #require(StructuredDiff.compare(old: xml, new: changed)).get()
        #expect(Self.lines(different) == ["/Title: \"Porto\" -> \"Lisbon\""])
    }
}

extension Result<StructuredDiff, StructuredValue.Refusal> {
    /// Why the comparison was refused; nil when it was made.
    var refusal: StructuredValue.Refusal? {
        if case .failure(let refusal) = self { refusal } else { nil }
    }
}
