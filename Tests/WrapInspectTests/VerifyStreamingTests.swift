import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 23, item 7: `verify` streams each archive form back into a
/// manifest through a pipe as it is packed, storing none of them (a zip or
/// 7z, read by seeking, goes through an unnamed temporary file).
@Suite(.enabled(if: geteuid() == 0, "mounting a small tmpfs needs root"))
struct VerifyStreamingTests {
    /// A tree of 3 MB of random bytes, verified with `$TMPDIR` on a 1 MB
    /// tmpfs, which holds none of its tar forms: each is kept all the same.
    @Test func tarFormsAreReadBackWithoutBeingStored() throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 237)
        try Disk.write(Data(random.bytes(3_000_000)), to: directory.appending("src/random.bin"))
        try Disk.write("small", to: directory.appending("src/sub/small.txt"))
        let mount = try Disk.mountTmpfs(size: "1m", named: "small", in: directory)
        defer { Disk.unmount(mount) }
        let result = try WrapInspectProcess.run(["verify", "--via", "tar,tar.gz,tar.zst,cpio", "src"], in: directory.url,
                                                environment: ["TMPDIR": mount.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdoutLines.map { $0.prefix { $0 != " " } } == ["tar", "tar.gz", "tar.zst", "cpio"], "\(result.stdout)")
        #expect(result.stdoutLines.allSatisfy { $0.contains("  kept") }, "\(result.stdout)")

        // A zip is read by seeking: its temporary does not fit, and the row says why.
        let zip = try WrapInspectProcess.run(["verify", "--via", "zip", "src"], in: directory.url, environment: ["TMPDIR": mount.path])
        #expect(zip.status == 1)
        #expect(zip.stdout.contains("No space left on device"), "\(zip.stdout)")
        #expect(try Disk.names(in: mount) == [], "nothing left")
    }
}
