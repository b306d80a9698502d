import Foundation
import Glibc

extension Manifest {
    /// Writes the manifest file in `format` to the open descriptor `fd`
    /// (`write(2)`), a piece at a time; `path` names it in errors.
    package func write(as format: ManifestFileFormat, to fd: CInt, path: String) throws(FileWrapperError) {
        try write(as: format) { (piece) throws(FileWrapperError) in
            try Syscall.writeAll(piece, to: fd, path: { path })
        }
    }

    /// Writes the manifest file in `format` to `path`, streaming. A regular
    /// file (or nothing) there is replaced atomically: the manifest is
    /// written under a temporary name beside it (its writeback started
    /// every mebibyte) and swapped in, both on the disk before it returns
    /// (``Durability/synced``), so that a reader finds the old file or the
    /// new one, whole, with the old file's permission bits; temporaries a
    /// killed process left are removed first.
    /// Anything else (a device such as `/dev/null`, a pipe, a symbolic
    /// link) is opened and written through, never replaced.
    package func write(as format: ManifestFileFormat, toFileAt path: String) throws(FileWrapperError) {
        let (parentPath, name) = TreeReader.split(path)
        let parent = try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
        defer { Syscall.close(parent) }
        if let existing = Syscall.statusIfPresent(of: name, in: parent), FileKind(mode: existing.st_mode) != .regularFile {
            let fd = try Syscall.open(name, in: parent, flags: O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY, mode: 0o666, path: { path })
            defer { Syscall.close(fd) }
            try write(as: format, to: fd, path: path)
            return
        }
        let replacement = PendingReplacement(of: name, in: parent, parentPath: parentPath)
        let fd = try replacement.createFile()
        do throws(FileWrapperError) {
            defer { Syscall.close(fd) }
            let writeback = WritebackStarter(fd: fd, stride: 1 << 20)
            try write(as: format) { (piece) throws(FileWrapperError) in
                try Syscall.writeAll(piece, to: fd, path: { path })
                writeback.wrote(piece.count)
            }
            try replacement.commit(.synced, file: fd)
        } catch {
            replacement.discard()
            throw error
        }
    }
}

extension Manifest {
    /// Entries one core formats at a time: about 256 KiB of JSON.
    static let entriesPerPart = 1024

    /// Appends the text of every entry, as `appendEntry` writes the one at
    /// an index, after `text` (the file's start) and hands it all on in
    /// order. A long manifest is formatted on every core, a batch at a
    /// time: each core writes its own part of the batch (`entriesPerPart`
    /// entries), and the parts are handed on as they stand, so that memory
    /// stays at one part a core.
    func appendEntries<Failure: Error>(
        to text: inout ManifestText, handingOnTo deliver: (UnsafeRawBufferPointer) throws(Failure) -> Void,
        _ appendEntry: @Sendable (_ index: Int, _ text: inout ManifestText) -> Void
    ) throws(Failure) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard cores > 1, entries.count > Self.entriesPerPart else {
            for index in entries.indices {
                appendEntry(index, &text)
                try text.handOn(to: deliver)
            }
            return
        }
        try text.handOn(finishing: true, to: deliver)
        var parts = Array(repeating: ManifestText(), count: cores)
        let count = entries.count
        for batchStart in stride(from: 0, to: count, by: cores * Self.entriesPerPart) {
            parts.withUnsafeMutableBufferPointer { parts in
                let shared = SharedMemory(buffer: parts)
                WorkerThreads.perform(iterations: parts.count) { part in
                    let start = min(count, batchStart + part * Self.entriesPerPart)
                    // Formatted in a local, not in place: the parts share a cache line.
                    var text = ManifestText()
                    swap(&text, &shared.buffer[part])
                    for index in start..<min(count, start + Self.entriesPerPart) {
                        appendEntry(index, &text)
                    }
                    swap(&text, &shared.buffer[part])
                }
            }
            for part in parts.indices {
                try parts[part].handOn(finishing: true, to: deliver)
            }
        }
    }
}
