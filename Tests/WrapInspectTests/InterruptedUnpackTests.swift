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
}
