import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// An atomic save killed at any instant (at least 30 kills that land
/// mid-save) leaves the old document or the new one, whole; the next save
/// removes what the killed ones left.
@Suite struct InterruptedSaveTests {
    /// A package whose every file says which version it belongs to; the two
    /// versions have different names too, so a mix is visible.
    static func makeVersion(_ version: String, at url: URL) throws {
        let chunk = String(repeating: "\(version) ", count: 16 * 1024)
        for index in 0..<120 {
            try Disk.write(chunk, to: url.appendingPathComponent("Pages-\(version)/\(index % 10)/page-\(index).txt"))
        }
        try Disk.write("{\"version\": \"\(version)\"}", to: url.appendingPathComponent("index.json"))
    }

    @Test func killedAtRandomInstantsTheDocumentIsOldOrNewWhole() throws {
        let directory = try TemporaryDirectory()
        let versions = ["A": directory.appending("A.source"), "B": directory.appending("B.source")]
        for (name, url) in versions { try Self.makeVersion(name, at: url) }
        let trees = try versions.mapValues { try DiskTree($0, directoryTimes: false) }
        let document = directory.appending("Doc.package")
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        try #require(Disk.run(child, ["save", versions["A"]!.path, document.path]).status == 0)

        let started = Date()
        try #require(Disk.run(child, ["save", versions["B"]!.path, document.path]).status == 0)
        let saveDuration = Date().timeIntervalSince(started)

        var current = "B"
        var outcomes: [String: Int] = [:]
        // At least 30 kills must land mid-save; under a loaded machine the
        // saves' speed varies, so keep going (to 240 tries) until they have.
        for _ in 0..<240 where outcomes["killed", default: 0] < 30 {
            let next = current == "A" ? "B" : "A"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: child)
            process.arguments = ["save", versions[next]!.path, document.path]
            try process.run()
            usleep(useconds_t(Double.random(in: 0...(saveDuration * 1.2)) * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let onDisk = try DiskTree(document, directoryTimes: false)
            let whole = trees.first { $0.value == onDisk }?.key
            try #require(whole != nil, "after a kill the document is neither version:\n\(onDisk)")
            current = whole!
            outcomes[process.terminationReason == .uncaughtSignal ? "killed" : "finished", default: 0] += 1
        }
        #expect(outcomes["killed", default: 0] >= 30, "too few saves were actually killed: \(outcomes)")

        try #require(Disk.run(child, ["save", versions["A"]!.path, document.path]).status == 0)
        #expect(try Disk.names(in: directory.url) == ["A.source", "B.source", "Doc.package"])
        #expect(try DiskTree(document, directoryTimes: false) == trees["A"])
    }
}
