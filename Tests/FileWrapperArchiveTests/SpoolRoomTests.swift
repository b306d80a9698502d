@testable import FileWrapperArchive
import Foundation
import Glibc
import Testing

/// Issue 33, item 1: a spool stops before its file system runs out of
/// room, keeping a margin free (`fstatfs` on the spool): with a margin
/// larger than any disk, the first look refuses, naming the temporary
/// folder and `TMPDIR`; with the real one, a disk with room passes.
@Suite struct SpoolRoomTests {
    @Test func aSpoolKeepsItsMarginFree() throws {
        let spool = try ArchiveSpool.make(for: "the pipe")
        defer { close(spool) }
        #expect(throws: Never.self) { try ArchiveSpool.checkRoom(of: spool, name: "the pipe") }
        #expect {
            try ArchiveSpool.checkRoom(of: spool, name: "the pipe", keeping: 1 << 60)
        } throws: { error in
            guard let error = error as? ArchiveError else { return false }
            return error.code == .io && error.archive == "the pipe"
                && error.message.contains("the temporary folder \(FileManager.default.temporaryDirectory.path) has ")
                && error.message.contains("set TMPDIR to a folder with more room")
        }
    }
}
