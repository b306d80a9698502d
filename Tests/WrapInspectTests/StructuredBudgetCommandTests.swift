import Foundation
import Testing
import TestSupport

/// `wrapinspect diff --structured` and `--html` on binary property lists
/// that refer to one array from many places (a billion laughs: 31 objects
/// that expand to 2³¹ values) and to themselves: not compared as data, and
/// said so, within a bounded memory, where they took gigabytes until they
/// crashed or were stopped.
@Suite("wrapinspect diff --structured within a budget")
struct StructuredBudgetCommandTests {
    typealias Bytes = BinaryPlistBytes

    static func folders(in directory: TemporaryDirectory) throws {
        try Disk.write(Data(Bytes.sharedTwice(depth: 30, leaf: "x")), to: directory.appending("A/shared.plist"))
        try Disk.write(Data(Bytes.sharedTwice(depth: 30, leaf: "y")), to: directory.appending("B/shared.plist"))
        try Disk.write(Data(Bytes.list([Bytes.array([1]), Bytes.array([0])])), to: directory.appending("A/cycle.plist"))
        try Disk.write(Data(Bytes.list([Bytes.array([1]), Bytes.ascii("x")])), to: directory.appending("B/cycle.plist"))
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }

    /// At the default budget of a million values (a tenth of it at reduced
    /// sizes: counting a million values takes a minute under a sanitizer):
    /// status 1, each file's patch saying why it was not compared, then its
    /// bytes'. Before the budget, it did not end within the minute allowed.
    @Test func sharedReferencesAndCyclesAreNotComparedAsData() throws {
        let directory = try TemporaryDirectory()
        try Self.folders(in: directory)
        let budget = TestSizes.pick(full: 1_000_000, reduced: 100_000)
        let lowered = budget == 1_000_000 ? [] : ["--max-structured-nodes", "\(budget)"]
        let run = try MeasuredRun.wrapinspect(["diff", "-p", "--structured"] + lowered + ["A", "B"], in: directory.url, timeout: 60)
        #expect(run.status == 1)
        // 115 MiB in a debug build; more under a sanitizer.
        #expect(run.peakBytes < TestSizes.pick(full: 400 << 20, reduced: 1 << 30), "peak \(run.peakBytes >> 20) MiB")
        let lines = Self.lines(run.stdout)
        let shared = try #require(lines.firstIndex { $0.hasPrefix("M shared.plist ") }, "\(run.stdout)")
        #expect(lines[shared + 1] == "  not compared: the property list expands past \(budget) nodes, raise with --max-structured-nodes")
        #expect(lines[shared + 2].hasPrefix("  binary: first difference at byte "))
        let cycle = try #require(lines.firstIndex { $0.hasPrefix("M cycle.plist ") }, "\(run.stdout)")
        #expect(lines[cycle + 1] == "  not compared: the property list contains itself")
        #expect(lines[cycle + 2].hasPrefix("  binary: first difference at byte "))
    }

    /// The page and JSON say the same, here within a lowered budget.
    @Test func thePageAndJSONSayWhy() throws {
        let directory = try TemporaryDirectory()
        try Self.folders(in: directory)
        let lowered = ["--max-structured-nodes", "1000"]
        let page = try WrapInspectProcess.run(["diff", "--html", "page.html"] + lowered + ["A", "B"], in: directory.url)
        #expect(page.status == 1, "\(page.stderr)")
        let html = try String(contentsOf: directory.appending("page.html"), encoding: .utf8)
        #expect(html.contains("not compared: the property list expands past 1000 nodes, raise with --max-structured-nodes"))
        #expect(html.contains("not compared: the property list contains itself"))

        let json = try WrapInspectProcess.run(["diff", "--structured", "--json"] + lowered + ["A", "B"], in: directory.url)
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let changes = try #require(object["changes"] as? [[String: Any]])
        func patch(_ path: String) -> [String: Any]? { changes.first { $0["path"] as? String == path }?["patch"] as? [String: Any] }
        #expect(patch("shared.plist")?["skipped"] as? [String: String]
            == ["reason": "the property list expands past 1000 nodes", "flag": "--max-structured-nodes"])
        #expect(patch("cycle.plist")?["skipped"] as? [String: String] == ["reason": "the property list contains itself"])
        #expect(patch("cycle.plist")?["type"] as? String == "binary")
    }
}
