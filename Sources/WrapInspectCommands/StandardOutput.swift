import FileWrapperKit
import Foundation
import Glibc

/// Standard output, written only through here: buffered, with every
/// `write(2)` checked, so that output that cannot be written (a full disk,
/// an I/O error, a reader that went away) is an error, never a crash or a
/// success. `print` and `FileHandle.write` are not used: the first drops
/// errors, the second traps on them.
///
/// Used from the main thread only (the progress line writes to standard
/// error).
enum StandardOutput {
    /// Bytes not yet written; written once they pass 64 KiB and at the end.
    nonisolated(unsafe) private static var pending: [UInt8] = []

    /// Appends `text` and a newline.
    static func line(_ text: String) throws {
        pending += text.utf8
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= 1 << 16 { try flush() }
    }

    /// Writes `bytes` after what is pending, straight through when large.
    static func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= 1 << 16 else {
            pending += bytes
            if pending.count >= 1 << 16 { try flush() }
            return
        }
        try flush()
        try writeAll(bytes)
    }

    static func write(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in try write(bytes) }
    }

    /// Writes what is pending.
    static func flush() throws {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        try pending.withUnsafeBytes { bytes in try writeAll(bytes) }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try Syscall.writeAll(bytes, to: STDOUT_FILENO, path: { "standard output" })
        } catch {
            throw StandardOutputError(error)
        }
    }
}

/// Standard output could not be written: `wrapinspect: standard output:
/// No space left on device`, exit status 2. A reader that went away
/// (`EPIPE`, SIGPIPE being ignored) ends the program quietly, as `head`
/// users expect.
struct StandardOutputError: Error, LocalizedError {
    var errno: CInt

    /// The error of a failed write (a ``FileWrapperError`` carries its errno).
    init(_ error: Error) {
        errno = (error as? FileWrapperError)?.errno?.rawValue ?? EIO
    }

    var isClosedPipe: Bool { errno == EPIPE }

    var errorDescription: String? { "standard output: \(String(cString: strerror(errno)))" }
}
