import Foundation
import Testing
import TestSupport

/// `wrapinspect` on a zip that Info-ZIP's zip wrote with a member from
/// standard input (`cmd | zip out.zip -`): a zip64 end record and locator
/// before a classic end record that holds real values. `dump`,
/// `dump --stored`, `unpack`, `cat` and `digest` all read it, the
/// directory ending where the zip64 end record begins.
@Suite("wrapinspect on a zip with both end records")
struct ZipEndRecordCommandTests {
    @Test func everyCommandReadsIt() throws {
        let directory = try TemporaryDirectory()
        try DigestTests.shell("""
            printf 'first\\n' > a.txt && zip -q -X st.zip a.txt && printf 'hello\\n' | zip -q -X st.zip - \
            && grep -q "$(printf 'PK\\006\\006')" st.zip
            """, in: directory.url)
        for arguments in [["dump", "st.zip"], ["dump", "--stored", "st.zip"]] {
            let result = try WrapInspectProcess.run(arguments, in: directory.url)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
            #expect(result.stdoutLines.contains { $0.hasSuffix(" a.txt") } && result.stdoutLines.contains { $0.hasSuffix(" -") },
                    "\(arguments): \(result.stdout)")
        }
        for (member, contents) in [("a.txt", "first\n"), ("-", "hello\n")] {
            let result = try WrapInspectProcess.run(["cat", "st.zip", member], in: directory.url)
            #expect(result.status == 0 && result.stdoutBytes == Array(contents.utf8), "\(member): \(result.stderr)")
        }
        let unpack = try WrapInspectProcess.run(["unpack", "st.zip", "out"], in: directory.url)
        #expect(unpack.status == 0, "\(unpack.stderr)")
        #expect(try Data(contentsOf: directory.appending("out/a.txt")) == Data("first\n".utf8))
        #expect(try Data(contentsOf: directory.appending("out/-")) == Data("hello\n".utf8))
        #expect(try DigestTests.digest("st.zip", in: directory.url) == DigestTests.digest("out", in: directory.url))
    }
}
