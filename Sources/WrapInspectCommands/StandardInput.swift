import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc

/// Standard input as an input path: `-`, `/dev/stdin`, `/proc/self/fd/0`
/// and `/dev/fd/0` all mean it, for `dump`, `digest`, `cat`, `snapshot`,
/// `diff` and `unpack`.
///
/// Standard input redirected from a regular file is read as that file
/// (its path, from `/proc/self/fd/0`, checked to be the same inode). A
/// pipe (or a socket, or a device) is read as it comes by the commands
/// that read their input once (`dump`, `digest`, `cat`, `snapshot`,
/// `unpack`: ``stream(for:)``), through the readers' descriptor entry
/// points, which spool only a zip or a 7z (their directories lie at the
/// end). `diff` and `verify`, which read an input more than once, get a
/// copy (``url(for:limits:)``): made as it comes into a file in a private
/// folder in `$TMPDIR` (mode 0700, named and locked as ``Replacement``
/// names a temporary, so that a signal or the next run removes it), then
/// read as any file; a stream longer than any input within the limits can
/// be (``ArchiveReadLimits/streamCapacity``) is refused, the copy removed.
/// Either way, the same bytes give the same entries, sizes and digests as
/// the file itself.
enum StandardInput {
    static let name = "wrapinspect-stdin"
    /// The folder that holds the copy, with the descriptor on `$TMPDIR`
    /// whose lock marks it live.
    nonisolated(unsafe) private static var spool: (folder: String, name: String, lockedFd: CInt)?
    nonisolated(unsafe) private static var resolved: URL?

    /// Whether `path` names standard input.
    static func isNamed(by path: String) -> Bool {
        ["-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0", "/proc/\(getpid())/fd/0"].contains(path)
    }

    /// Standard input's descriptor and its name in messages, when `path`
    /// names it and it is a stream (a pipe, a socket, a device), to be
    /// read once as it comes; nil for any other path, and for standard
    /// input redirected from a file, which is read by its path (``url(for:limits:)``).
    /// A terminal is refused.
    static func stream(for path: String) throws -> (fd: CInt, name: String)? {
        guard isNamed(by: path), resolved == nil else { return nil }
        var status = stat()
        guard Syscall.invoke(.fstat, { fstat(STDIN_FILENO, &status) }) == 0 else {
            throw StandardInputError(message: "standard input: \(String(cString: strerror(errno)))")
        }
        if status.st_mode & S_IFMT == S_IFREG { return nil }
        if isatty(STDIN_FILENO) == 1 {
            throw StandardInputError(message: "standard input is a terminal; pipe an archive into it or name a file")
        }
        return (STDIN_FILENO, "standard input")
    }

    /// The manifest of `path`, standard input's stream read as it comes
    /// when `path` names it (``stream(for:)``), else the path's, or that
    /// of standard input's file or copy when `streaming` is false.
    static func manifest(of path: String, streaming: Bool, options: ManifestReadOptions) throws -> Manifest {
        if streaming, let stream = try stream(for: path) {
            return try Manifest(readingFrom: stream.fd, name: stream.name, options: options)
        }
        return try Manifest(reading: url(for: path, limits: options.limits), options: options)
    }

    /// The URL to read for `path`: standard input's file (or a copy of
    /// what it brings, within what `limits` allow) when `path` names it,
    /// else `path` itself.
    static func url(for path: String, limits: ArchiveReadLimits) throws -> URL {
        guard isNamed(by: path) else { return URL(fileURLWithPath: path) }
        if let resolved { return resolved }
        let url = try fileOrCopy(limits: limits)
        resolved = url
        return url
    }

    private static func fileOrCopy(limits: ArchiveReadLimits) throws -> URL {
        var status = stat()
        guard Syscall.invoke(.fstat, { fstat(STDIN_FILENO, &status) }) == 0 else {
            throw StandardInputError(message: "standard input: \(String(cString: strerror(errno)))")
        }
        if status.st_mode & S_IFMT == S_IFREG, Syscall.invoke(.lseek, { lseek(STDIN_FILENO, 0, SEEK_CUR) }) == 0,
           let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/0") {
            var named = stat()
            if stat(path, &named) == 0, named.st_dev == status.st_dev, named.st_ino == status.st_ino {
                return URL(fileURLWithPath: path)
            }
        }
        if isatty(STDIN_FILENO) == 1 {
            throw StandardInputError(message: "standard input is a terminal; pipe an archive into it or name a file")
        }
        return try copy(limits: limits)
    }

    /// Copies standard input, to its end, into `standard input` in a new
    /// private folder; the URL names it `standard input` in messages.
    /// Refused as a zip's or 7z's spool is (``ArchiveSpool/fill(_:head:rest:name:limits:kind:advice:progress:)``):
    /// once a byte more than `limits` allow has come (no more is read),
    /// naming ``ArchiveReadLimits/maxBytes``, which raises it; once a zip
    /// or 7z stops looking like one; before `$TMPDIR` runs out of room.
    /// The copy is removed then.
    private static func copy(limits: ArchiveReadLimits) throws -> URL {
        let temporary = FileManager.default.temporaryDirectory.path
        let fd = try Syscall.open(temporary, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { temporary })
        Replacement.removeLeftovers(of: name, in: fd, parentPath: temporary)
        Interruption.removesTemporaries(replacing: PathDisplay.join(temporary, [name]))
        let folderName = Replacement.temporaryName(for: name, lockingIn: fd)
        try Syscall.makeDirectory(folderName, in: fd, mode: 0o700, path: { PathDisplay.join(temporary, [folderName]) })
        spool = (temporary, folderName, fd)
        let folder = URL(fileURLWithPath: temporary).appendingPathComponent(folderName)
        let file = URL(fileURLWithPath: "standard input", relativeTo: folder)
        do {
            let out = try Syscall.open(file.path, in: AT_FDCWD, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600, path: { file.path })
            defer { Syscall.close(out) }
            try ProgressLine.showing("reading", "standard input") { progress in
                try ArchiveSpool.fill(out, rest: STDIN_FILENO, name: "standard input", limits: limits, kind: "an input",
                                      advice: "; name a file instead") { progress?.count(bytes: Int64($0)) }
            }
        } catch {
            removeCopy()
            throw error
        }
        return file
    }

    /// Removes the copy, if one was made.
    static func removeCopy() {
        guard let spool else { return }
        try? TreeRemover.remove(Array(spool.name.utf8), in: spool.lockedFd, parentPath: spool.folder)
        Self.spool = nil
    }
}

/// Standard input cannot be read as asked.
struct StandardInputError: Error, LocalizedError {
    var message: String
    var errorDescription: String? { message }
}
