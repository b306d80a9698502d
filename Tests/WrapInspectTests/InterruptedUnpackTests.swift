import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 33, item 3: an unpack interrupted at any instant, its workers
/// still writing, leaves no temporary: the signal's handler closes the
/// process's CreationGate before it lists the temporaries (none is made
/// after the listing, and none grows while it is removed), and lists
/// again until none is left. Many signals at random instants of an unpack
/// of many files, each run ending of its signal within seconds.
@Suite struct InterruptedUnpackTests {
    @Test func manySignalsAtRandomInstantsLeaveNoTemporary() throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 3303)
        let files = TestSizes.pick(full: 2000, reduced: 600)
        for index in 0..<files {
            let size = Int(random.next() % 6000) + 1
            try Disk.write(Data(random.bytes(size, in: 0x61...0x7A)), to: directory.appending("src/d\(index % 40)/f\(index).txt"))
        }
        try FileManager.default.createDirectory(at: directory.appending("tmp"), withIntermediateDirectories: false)
        let packed = try WrapInspectProcess.run(["pack", "src", "whole.tar"], in: directory.url)
        try #require(packed.status == 0, "\(packed.stderr)")
        let start = Date()
        let first = try WrapInspectProcess.run(["unpack", "whole.tar", "out"], in: directory.url)
        let expected = Date().timeIntervalSince(start)
        try #require(first.status == 0, "\(first.stderr)")
        let executable = try #require(WrapInspectProcess.executableURL)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(null) }

        let signals = [SIGTERM, SIGHUP]
        var landed = 0
        for run in 0..<TestSizes.pick(full: 40, reduced: 16) {
            let signal = signals[run % signals.count]
            let delay = Double(random.next() % 1000) / 1000 * expected
            let pid = try ChildProcess.spawn(executable.path, ["unpack", "--force", "whole.tar", "out"], in: directory.url,
                                             environment: ["TMPDIR": directory.appending("tmp").path], standardOutput: null, standardError: null)
            usleep(useconds_t(delay * 1_000_000))
            kill(pid, signal)
            let (_, ended, finished) = ChildProcess.wait(for: pid, killingAfter: 30)
            try #require(finished, "unpack, signal \(signal) after \(delay) s: still running 30 s later")
            if ended == signal { landed += 1 }
            let left = try Disk.names(in: directory.url).filter { $0.contains(".fwk-save-") }
            #expect(left == [], "unpack, signal \(signal) after \(delay) s")
            for name in left { try? FileManager.default.removeItem(at: directory.appending(name)) }
        }
        #expect(landed >= 3, "\(landed) signals landed mid-run")
    }

    /// The gate itself, closed at a random instant of an unpack (in
    /// fwk-test-child, as the handler closes it): no name is made after it,
    /// so the unpack fails (ECANCELED), removes its temporary, and the
    /// destination is as it was, absent.
    @Test func anUnpackMakesNoNameOnceTheGateCloses() throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 3304)
        for index in 0..<TestSizes.pick(full: 1500, reduced: 500) {
            try Disk.write(Data(random.bytes(Int(random.next() % 4000) + 1, in: 0x61...0x7A)),
                           to: directory.appending("src/d\(index % 30)/f\(index).txt"))
        }
        let packed = try WrapInspectProcess.run(["pack", "src", "whole.tar"], in: directory.url)
        try #require(packed.status == 0, "\(packed.stderr)")
        let archive = directory.appending("whole.tar").path, out = directory.appending("out").path
        let duration = try KillHarness.measure(["unpack", archive, out])
        try FileManager.default.removeItem(atPath: out)
        var stopped = 0
        for _ in 0..<TestSizes.pick(full: 12, reduced: 6) {
            let delay = Double(random.next() % 800) / 1000 * duration
            let result = try ChildProcess.run(KillHarness.child.path, ["unpack", archive, out, "--close-creation-gate-after=\(delay)"])
            if result.status == 0 {
                try FileManager.default.removeItem(atPath: out)
                continue
            }
            stopped += 1
            #expect(result.status == 2 && result.stderr.contains("Operation canceled"), "after \(delay) s: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "after \(delay) s")
            #expect(try Disk.names(in: directory.url).filter { $0.contains(".fwk-save-") } == [], "after \(delay) s")
        }
        #expect(stopped >= 2, "\(stopped) unpacks met the closed gate")
    }
}
