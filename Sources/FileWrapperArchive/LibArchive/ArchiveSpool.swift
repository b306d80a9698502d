import FileWrapperKit
import Foundation
import Glibc

/// An unnamed temporary file in the temporary folder (`openat` with
/// `O_TMPFILE`, mode 0600), for what a stream brings that must be read by
/// seeking or kept until its end: a zip or 7z read from a pipe, whose
/// central directory or header lies at the end, or a member that `cat`
/// reads from a stream. Unnamed, it is gone with its descriptor, whatever
/// ends the process.
enum ArchiveSpool {
    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Swift does not import.
    private static let temporaryFileFlag: CInt = 0o20_000_000 | O_DIRECTORY

    /// A new, empty spool, open for reading and writing; `name` names
    /// what it holds in errors.
    static func make(for name: String) throws -> CInt {
        let folder = FileManager.default.temporaryDirectory.path
        return try ArchiveError.io(archive: name) {
            try Syscall.open(folder, in: AT_FDCWD, flags: O_RDWR | temporaryFileFlag, mode: 0o600, path: { folder })
        }
    }

    /// Whether libarchive reads an input that starts with `head` only by
    /// seeking: a zip (its central directory says what its local headers
    /// only may, and holds what this reader checks them against) or a 7z.
    static func isNeeded(for head: [UInt8]) -> Bool {
        let zip: [[UInt8]] = [[0x50, 0x4B, 0x03, 0x04], [0x50, 0x4B, 0x05, 0x06], [0x50, 0x4B, 0x07, 0x08]]
        return zip.contains { head.starts(with: $0) } || head.starts(with: [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C])
    }

    /// A spool holding `head` and then the rest of the stream `fd` to its
    /// end, at offset 0.
    static func copy(head: [UInt8], rest fd: CInt, name: String) throws -> CInt {
        let spool = try make(for: name)
        do {
            try ArchiveError.io(archive: name) {
                try head.withUnsafeBytes { try Syscall.writeAll($0, to: spool, path: { name }) }
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
                defer { buffer.deallocate() }
                while true {
                    let count = try Syscall.retrying(.read, { name }) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
                    if count == 0 { break }
                    try Syscall.writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<count]), to: spool, path: { name })
                }
                _ = try Syscall.retrying(.lseek, { name }) { lseek(spool, 0, SEEK_SET) }
            }
            return spool
        } catch {
            Syscall.close(spool)
            throw error
        }
    }
}
