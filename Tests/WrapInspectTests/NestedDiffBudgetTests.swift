import Foundation
import Testing
import TestSupport

/// `wrapinspect diff --patch` within a budget: archives inside archives
/// are compared as trees to a depth, a number of bytes and a number of
/// entries across the whole comparison, and past them are reported as not
/// compared (not as trouble); and however many files changed, only a batch
/// of them is held at a time.
@Suite("wrapinspect diff: nested archives and patches within a budget")
struct NestedDiffBudgetTests {
    /// old.zip and new.zip in `directory`, written by Python: each holds
    /// `copies` zips of one deflated file of `size` zeros (the new side's
    /// last byte 1), deflated again, so that they are small however large
    /// `size` is.
    static func nestedZips(copies: Int, size: Int, in directory: TemporaryDirectory) throws {
        let script = """
            import io, sys, zipfile
            def deflated(name):
                info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                return info
            copies, size = int(sys.argv[3]), int(sys.argv[4])
            for path, last in ((sys.argv[1], 0), (sys.argv[2], 1)):
                buffer = io.BytesIO()
                with zipfile.ZipFile(buffer, "w") as inner:
                    inner.writestr(deflated("zeros.bin"), bytes(size - 1) + bytes([last]))
                with zipfile.ZipFile(path, "w") as outer:
                    for index in range(copies):
                        outer.writestr(deflated(f"copy-{index:03}.zip"), buffer.getvalue())
            """
        let made = try ChildProcess.run("/usr/bin/python3", ["-c", script, directory.appending("old.zip").path, directory.appending("new.zip").path,
                                                             String(copies), String(size)])
        try #require(made.status == 0, "\(made.stderr)")
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }

    /// 20 zips of 1 MiB of zeros inside a zip, a budget of 4 MiB: the first
    /// pair is compared as trees (1 MiB a side for the manifests, 1 MiB a
    /// side for the changed file's patch), the other 19 are not, and say
    /// so in text, JSON and the page; the diff's status is 1, as for any
    /// difference.
    @Test func nestedArchivesPastTheByteBudgetAreNotCompared() throws {
        let directory = try TemporaryDirectory()
        try Self.nestedZips(copies: 20, size: 1 << 20, in: directory)
        let budget = ["--max-nested-bytes", String(4 << 20)]
        let result = try WrapInspectProcess.run(["diff", "-p"] + budget + ["old.zip", "new.zip"], in: directory.url)
        #expect(result.status == 1, "\(result.stderr)")
        let lines = Self.lines(result.stdout)
        let first = try #require(lines.firstIndex { $0.hasPrefix("M copy-000.zip ") }, "\(result.stdout)")
        #expect(Array(lines[(first + 1)...].prefix(2)) == ["  M zeros.bin (1.0 MiB -> 1.0 MiB)", "    binary: first difference at byte 1048575 (0xfffff): 00 -> 01"])
        let skipped = "  not compared: nested archives expand past 4194304 bytes, raise with --max-nested-bytes"
        #expect(lines.filter { $0 == skipped }.count == 19, "\(result.stdout)")
        let second = try #require(lines.firstIndex { $0.hasPrefix("M copy-001.zip ") })
        #expect(lines[second + 1] == skipped)
        #expect(lines[second + 2].hasPrefix("  binary: first difference at byte "), "the bytes' patch instead")

        let json = try WrapInspectProcess.run(["diff", "-p", "--json"] + budget + ["old.zip", "new.zip"], in: directory.url)
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let changes = try #require(object["changes"] as? [[String: Any]])
        let patches = changes.compactMap { $0["patch"] as? [String: Any] }
        #expect(patches.count == 20)
        #expect(patches.first?["type"] as? String == "archive")
        let reasons = patches.dropFirst().compactMap { $0["skipped"] as? [String: String] }
        #expect(reasons.count == 19 && reasons.allSatisfy { $0 == ["reason": "nested archives expand past 4194304 bytes", "flag": "--max-nested-bytes"] })
        #expect(patches.dropFirst().allSatisfy { $0["type"] as? String == "binary" })

        let page = try WrapInspectProcess.run(["diff", "--html", "page.html"] + budget + ["old.zip", "new.zip"], in: directory.url)
        #expect(page.status == 1, "\(page.stderr)")
        let html = try String(contentsOf: directory.appending("page.html"), encoding: .utf8)
        #expect(html.components(separatedBy: "not compared: nested archives expand past 4194304 bytes, raise with --max-nested-bytes").count == 20)
    }

    /// The depth and the entries have limits of their own, each named.
    @Test func depthAndEntriesHaveLimitsToo() throws {
        let directory = try TemporaryDirectory()
        try Self.nestedZips(copies: 3, size: 1024, in: directory)
        let flat = try WrapInspectProcess.run(["diff", "-p", "--max-nested-depth", "0", "old.zip", "new.zip"], in: directory.url)
        #expect(flat.status == 1, "\(flat.stderr)")
        #expect(Self.lines(flat.stdout).filter { $0 == "  not compared: archives nested more than 0 deep, raise with --max-nested-depth" }.count == 3,
                "\(flat.stdout)")
        // One entry a side for the first pair, then the second pair's old side is the third.
        let few = try WrapInspectProcess.run(["diff", "-p", "--max-nested-entries", "3", "old.zip", "new.zip"], in: directory.url)
        #expect(few.status == 1, "\(few.stderr)")
        let lines = Self.lines(few.stdout)
        #expect(lines.contains("  M zeros.bin (1.0 KiB -> 1.0 KiB)"), "\(few.stdout)")
        #expect(lines.filter { $0 == "  not compared: nested archives hold more than 3 entries, raise with --max-nested-entries" }.count == 2,
                "\(few.stdout)")
        for flag in ["--max-nested-bytes", "--max-nested-entries", "--max-structured-nodes"] {
            let bad = try WrapInspectProcess.run(["diff", "-p", flag, "0", "old.zip", "new.zip"], in: directory.url)
            #expect(bad.status == 2 && bad.stderr.contains("\(flag) must be more than 0"), "\(flag): \(bad.stderr)")
        }
    }

    /// The shape that ran for tens of minutes (75 GB of work): 300 zips of
    /// 60 MiB of zeros a side, 130 KB each. Within the default budget of
    /// 256 MiB, the first pairs are compared and the rest are not, before
    /// the two minutes allowed (2.4 s in a debug build) and in little
    /// memory. A reduced run makes 16 MiB zips, which spend the budget as
    /// well.
    @Test func theNestedBombEndsWithinSeconds() throws {
        let directory = try TemporaryDirectory()
        try Self.nestedZips(copies: 300, size: TestSizes.pick(full: 60 << 20, reduced: 16 << 20), in: directory)
        let run = try MeasuredRun.wrapinspect(["diff", "-p", "old.zip", "new.zip"], in: directory.url, timeout: 120)
        #expect(run.status == 1)
        #expect(run.peakBytes < 256 << 20, "peak \(run.peakBytes >> 20) MiB")
        let skipped = Self.lines(run.stdout).filter { $0 == "  not compared: nested archives expand past 268435456 bytes, raise with --max-nested-bytes" }
        #expect(skipped.count > 280, "\(run.stdout.prefix(2000))")
    }

    /// 200 changed files of 256 KiB (50 MiB a side) against 64 of them
    /// (16 MiB a side, one batch): the peak memory barely grows, since the
    /// patches are made a batch at a time and printed before the next is
    /// read. When every file's first bytes were held at once, the 200 took
    /// about 70 MiB more than the 64.
    @Test func patchesAreMadeABatchAtATime() throws {
        let directory = try TemporaryDirectory()
        let folders = [("many", 200), ("few", 64)]
        for (folder, count) in folders {
            for index in 0..<count {
                var bytes = [UInt8](count: 256 << 10) { $0 == 0 ? 0 : UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
                try Disk.write(Data(bytes), to: directory.appending("\(folder)/A/f\(index).bin"))
                bytes[100] ^= 0xFF
                try Disk.write(Data(bytes), to: directory.appending("\(folder)/B/f\(index).bin"))
            }
        }
        var peaks: [String: Int] = [:]
        for (folder, count) in folders {
            let run = try MeasuredRun.wrapinspect(["diff", "-p", "\(folder)/A", "\(folder)/B"], in: directory.url)
            #expect(run.status == 1)
            #expect(Self.lines(run.stdout).filter { $0.hasPrefix("  binary: first difference at byte 100 (0x64): ") }.count == count)
            peaks[folder] = run.peakBytes
        }
        let (many, few) = (peaks["many"] ?? 0, peaks["few"] ?? 0)
        #expect(many - few < 32 << 20, "peak \(many >> 20) MiB for 200 files, \(few >> 20) MiB for 64")
    }
}
