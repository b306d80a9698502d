// `import os`'s Logger, written to standard error: fwk-os-log-child logs
// at every level; this reads its lines.
import Foundation
import Testing
import TestSupport

@Suite(.startsProcesses) struct LoggerTests {
    @Test func everyLevelOnStandardErrorWithPrivacy() throws {
        let directory = try TemporaryDirectory()
        let run = try BuiltProgram.run("fwk-os-log-child", [], in: directory.url)
        #expect(run.status == 0 && run.stdout.isEmpty)
        var lines = run.stderr.split(separator: "\n").map(String.init)
        // "2026-12-02 01:24:14.123 Df fwk-os-log-child[pid] [com.example.Notes:Storage] text"
        let shape = #/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (Df|I |Db|E |F ) fwk-os-log-child\[\d+\] /#
        #expect(lines.allSatisfy { $0.contains(shape) })
        lines = lines.map { String($0.replacing(shape) { "\($0.output.1) " }) }
        let scope = "[com.example.Notes:Storage] "
        // The same value, masked twice, hashes the same (salted per process, so not a fixed string).
        let hashed = lines.count > 7 ? lines[7].split(separator: "'") : []
        #expect(hashed.count == 5 && hashed[1] == hashed[3])
        let hash = hashed.count == 5 ? hashed[1] : "?"
        #expect(lines == [
            "Db \(scope)trace 42",
            "Db \(scope)debug alice",
            "I  \(scope)info <private>",
            "Df \(scope)notice <private>",
            "E  \(scope)warning <private>",
            "E  \(scope)error <private> 42",
            "F  \(scope)fault 1.500000 true Swift.Int",
            "F  \(scope)critical <mask.hash: '\(hash)'> <mask.hash: '\(hash)'>",
            "Df \(scope)log 0xff ff 007",
            "I  \(scope)level 2.00 [   alice] [42  ] NO",
            "Df no subsystem",
        ])
    }
}
