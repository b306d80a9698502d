import Foundation
import Testing
import TestSupport

/// `wrapinspect dump` and `unpack` on a zip64 after a self-extracting stub
/// whose offsets were not adjusted for it, which libarchive 3.6.2 finds no
/// member in: both refuse it, naming it, as the library's readers do;
/// neither prints nor unpacks an empty tree.
@Suite("wrapinspect on an unadjusted self-extracting zip64")
struct SelfExtractingZipCommandTests {
    @Test func dumpAndUnpackRefuseIt() throws {
        let directory = try TemporaryDirectory()
        try DigestTests.shell("""
            mkdir src && printf 'first\\n' > src/a.txt && head -c 5000 /dev/zero > src/b.bin \
            && (cd src && zip -q -X -fz ../zip64.zip a.txt b.bin) \
            && printf '#!/bin/sh\\nexit 0\\n' > stub && cat stub zip64.zip > sfx.zip
            """, in: directory.url)
        let message = "wrapinspect: sfx.zip: the zip's central directory lists 2 members, but libarchive's zip reader finds none"
        for arguments in [["dump", "sfx.zip"], ["unpack", "sfx.zip", "out"]] {
            let result = try WrapInspectProcess.run(arguments, in: directory.url)
            #expect(result.status != 0 && result.stdout.isEmpty, "\(arguments): \(result.stdout)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
            // `dump --stored` is refused as well: no pointer to it.
            #expect(!result.stderr.contains("dump --stored"), "\(arguments): \(result.stderr)")
        }
        let stored = try WrapInspectProcess.run(["dump", "--stored", "sfx.zip"], in: directory.url)
        #expect(stored.status != 0 && stored.stderr.hasPrefix(message), "\(stored.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("out").path))
    }
}
