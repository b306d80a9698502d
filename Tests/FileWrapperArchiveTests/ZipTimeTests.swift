import Foundation
import Testing
import TestSupport
@testable import FileWrapperArchive
import FileWrapperKit

/// Zip headers carry their MS-DOS date and time in UTC, whatever the time
/// zone of the process that wrote them, so a reproducible zip is the same
/// bytes everywhere; the "UT" extra field keeps the Unix time.
@Suite(.startsProcesses) struct ZipTimeTests {
    /// 2024-03-05 23:30:10 UTC: already March 6 in Tokyo (UTC+9).
    static let evening: Int64 = 1_709_681_410

    /// Name -> modification time of the tree ``makeTree(at:)`` builds; the
    /// comments give the time in Tokyo where it differs in an interesting way.
    static let times: [String: Int64] = {
        var times: [String: Int64] = [
            "a.txt": evening,
            "odd-second.txt": evening + 1,  // DOS times count in two seconds
            "dir": 981_231_316,  // 2001-02-03 20:15:16 UTC, 02-04 05:15 in Tokyo
            "dir/large.bin": 946_684_798,  // 1999-12-31 23:59:58 UTC, year 2000 in Tokyo
            "link": evening,
            "before-1980.txt": 315_518_400,  // 1979-12-31 20:00 UTC, 1980-01-01 05:00 in Tokyo
            "epoch.txt": 0,
            "last-dos-second.txt": 4_354_819_199,  // 2107-12-31 23:59:59 UTC, 2108 in Tokyo
            "after-2107.txt": 4_354_819_200,  // 2108-01-01 00:00:00 UTC
            "many": evening,
        ]
        // Many small files, batched together for the deflate workers.
        for index in 0..<200 { times[String(format: "many/file-%03d.txt", index)] = evening - Int64(index) * 7919 }
        return times
    }()

    /// Builds the tree of ``times`` at `root`: small files, a 300 KB file
    /// that does not compress (stored, in three chunks, with a data
    /// descriptor), a symlink.
    static func makeTree(at root: URL) throws {
        var generator = SplitMix64(seed: 38)
        for name in times.keys.sorted() where name != "dir" && name != "many" && name != "link" {
            let contents = name.hasSuffix(".bin")
                ? Data(generator.bytes(300_000))
                : Data("contents of \(name)\n".utf8)
            try Disk.write(contents, to: root.appendingPathComponent(name))
        }
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: "a.txt")
        // Directories last: creating their files changed their times.
        for (name, seconds) in times.sorted(by: { $0.key > $1.key }) {
            Disk.setModificationTime(root.appendingPathComponent(name), seconds: Int(seconds), nanoseconds: 0)
        }
    }

    @Test func reproducibleZipIsTheSameBytesInUTCAndInTokyo() throws {
        try Self.requireTokyoTimeZone()
        let directory = try TemporaryDirectory()
        let source = directory.appending("Source")
        try Self.makeTree(at: source)
        var archives: [String: Data] = [:]
        for zone in ["UTC", "Asia/Tokyo"] {
            let archive = directory.appending("\(zone.replacingOccurrences(of: "/", with: "-")).zip")
            try Self.pack(source, to: archive, timeZone: zone, reproducible: true)
            archives[zone] = try Data(contentsOf: archive)
        }
        #expect(archives["UTC"] == archives["Asia/Tokyo"], "the zip's bytes depend on the time zone it was written in")
        try Self.verify(try #require(archives["Asia/Tokyo"]), expected: Self.times, directory: directory)
    }

    /// Written to a file by a process in Tokyo: every local and central
    /// header has the UTC date and time, the UT field the Unix time, and
    /// Python's zipfile reads the UTC date and time.
    @Test func headersHoldUTCTimesWhenWrittenInTokyo() throws {
        try Self.requireTokyoTimeZone()
        let directory = try TemporaryDirectory()
        let source = directory.appending("Source")
        try Self.makeTree(at: source)
        let archive = directory.appending("Tokyo.zip")
        try Self.pack(source, to: archive, timeZone: "Asia/Tokyo", reproducible: false)
        try Self.verify(try Data(contentsOf: archive), expected: Self.times, directory: directory)
    }

    /// The same through a byte sink, stored and deflated.
    @Test(arguments: [ArchiveWriteOptions.ZipMethod.store, .deflate])
    func headersHoldUTCTimesThroughASink(method: ArchiveWriteOptions.ZipMethod) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("Source")
        try Self.makeTree(at: source)
        let wrapper = try FileWrapper(url: source)
        let data = try ArchiveWriter.data(for: wrapper, options: ArchiveWriteOptions(format: .zip, zipMethod: method))
        try Self.verify(data, expected: Self.times, directory: directory)
    }

    // MARK: - Helpers

    /// The date and time the DOS fields should hold for `seconds`: its UTC
    /// broken-down time, limited like libarchive to 1980...2107 with even
    /// seconds.
    static func expectedDOS(_ seconds: Int64) -> [Int] {
        if seconds < 315_532_800 { return [1980, 1, 1, 0, 0, 0] }
        if seconds >= 4_354_819_200 { return [2107, 12, 31, 23, 59, 58] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return [parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second! / 2 * 2]
    }

    /// Checks every local and central header of `data` against `expected`
    /// (entry name without a directory's trailing slash -> Unix time), and
    /// what Python's zipfile reads.
    static func verify(_ data: Data, expected: [String: Int64], directory: TemporaryDirectory) throws {
        let zip = try ZipHeaders([UInt8](data))
        #expect(zip.local.count == expected.count)
        #expect(zip.central.count == expected.count)
        for header in zip.local + zip.central {
            let seconds = try #require(expected[header.entryName], "unexpected entry \(header.name)")
            #expect(header.dosDateTime == expectedDOS(seconds), "\(header.kind) header of \(header.name)")
            #expect(header.utModified == UInt32(truncatingIfNeeded: seconds), "UT field of the \(header.kind) header of \(header.name)")
        }

        let path = directory.appending("verify.zip")
        try data.write(to: path)
        let python = try run(
            "/usr/bin/env",
            ["python3", "-c", "import sys, zipfile\nfor i in zipfile.ZipFile(sys.argv[1]).infolist(): print(i.filename, *i.date_time)", path.path])
        try #require(python.status == 0, "python3 failed: \(python.stderr)")
        let lines = python.stdout.split(separator: "\n")
        #expect(lines.count == expected.count)
        for line in lines {
            let fields = line.split(separator: " ")
            let name = String(fields[0]).hasSuffix("/") ? String(fields[0].dropLast()) : String(fields[0])
            let seconds = try #require(expected[name], "python3 lists an unexpected entry \(fields[0])")
            #expect(fields.dropFirst().compactMap { Int($0) } == expectedDOS(seconds), "python3 reads \(line)")
        }
    }

    /// Fails loudly when the machine cannot show the time-zone difference
    /// the tests rely on.
    static func requireTokyoTimeZone() throws {
        try #require(FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Asia/Tokyo"),
                     "/usr/share/zoneinfo/Asia/Tokyo is missing: install tzdata (apt-get install tzdata)")
        let hour = try run("/usr/bin/env", ["TZ=Asia/Tokyo", "python3", "-c", "import time; print(time.localtime(\(evening)).tm_hour)"])
        try #require(hour.stdout == "8\n", "TZ=Asia/Tokyo does not give UTC+9 here: \(hour.stdout) \(hour.stderr)")
    }

    /// Packs `source` into `archive` in a child process running in `timeZone`,
    /// without SOURCE_DATE_EPOCH.
    static func pack(_ source: URL, to archive: URL, timeZone: String, reproducible: Bool) throws {
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        let result = try run(child, ["pack", "zip", source.path, archive.path] + (reproducible ? ["--reproducible"] : []),
                             environment: ["TZ": timeZone, "SOURCE_DATE_EPOCH": nil])
        try #require(result.status == 0, "fwk-test-child pack failed in \(timeZone): \(result.stderr)")
    }

    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:]
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try ChildProcess.run(executable, arguments, environment: environment)
        return (result.status, result.stdout, result.stderr)
    }
}
