import FileWrapperKit
import Foundation
import Glibc

/// An unnamed temporary file in the temporary folder (`openat` with
/// `O_TMPFILE`, mode 0600), for what a stream brings that must be read by
/// seeking or kept until its end: a zip or 7z read from a pipe, whose
/// central directory or header lies at the end, or a member that `cat`
/// reads from a stream. Unnamed, it is gone with its descriptor, whatever
/// ends the process.
package enum ArchiveSpool {
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
        return zip.contains { head.starts(with: $0) } || head.starts(with: sevenZipSignature)
    }

    /// A 7z's first bytes.
    static let sevenZipSignature: [UInt8] = [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]

    /// The most bytes a zip or 7z within `limits` can take, which the spool
    /// of a stream may hold: the contents (``ArchiveReadLimits/maxBytes``)
    /// and a sixteenth more, for what compressing data that does not
    /// compress adds (measured on 1 MiB of random bytes: deflate 0.03 %,
    /// bzip2 0.5 %, LZMA 1.4 %, 7z's PPMd 2.7 %); for each entry
    /// (``ArchiveReadLimits/maxEntries``), its path four times (a zip
    /// stores it in the local header and the central directory, and
    /// Info-ZIP once more in each as a Unicode Path field; a 7z as UTF-16,
    /// at most twice its UTF-8 bytes), a symlink's target (stored as its
    /// data, not counted as contents) and 5 KiB: fixed fields and
    /// ordinary extra fields (times, owners, zip64 sizes, a data
    /// descriptor: a few hundred bytes), and an alignment field that pads
    /// the data to a 4 KiB page (`zipalign -p`, ``ZipWriter``); and 1 MiB
    /// for the end records and the archive's comment (at most 64 KiB).
    /// Saturates at `Int64.max`.
    static func capacity(within limits: ArchiveReadLimits) -> Int64 {
        let perEntry = Int64(4).saturatingMultiply(Int64(limits.maxPathLength))
            .saturatingAdd(Int64(limits.maxLinkLength)).saturatingAdd(5 << 10)
        return limits.maxBytes.saturatingAdd(limits.maxBytes / 16)
            .saturatingAdd(Int64(limits.maxEntries).saturatingMultiply(perEntry)).saturatingAdd(1 << 20)
    }

    /// A spool holding `head` and then the rest of the stream `fd` to its
    /// end, at offset 0 (``fill(_:head:rest:name:limits:kind:advice:progress:)``).
    static func copy(head: [UInt8], rest fd: CInt, name: String, limits: ArchiveReadLimits) throws -> CInt {
        let spool = try make(for: name)
        do {
            try fill(spool, head: head, rest: fd, name: name, limits: limits, advice: "; read it from a file instead")
            try ArchiveError.io(archive: name) {
                _ = try Syscall.retrying(.lseek, { name }) { lseek(spool, 0, SEEK_SET) }
            }
            return spool
        } catch {
            Syscall.close(spool)
            throw error
        }
    }

    /// Writes `head` and then the rest of the stream `fd`, to its end, to
    /// `spool`, calling `progress` with the count of each block read.
    /// Stops, throwing, once a byte more than ``capacity(within:)`` allows
    /// has been read (no more is read), naming ``ArchiveReadLimits/maxBytes``,
    /// which raises it (`kind`, what the capacity is that of, and `advice`
    /// end the message); once the stream stops looking like the zip or 7z
    /// it began as (``SpoolShape``); and before the spool's file system
    /// has less than ``freeSpaceMargin`` left (``checkRoom(of:name:keeping:)``).
    /// What was written stays, for the caller to remove.
    package static func fill(
        _ spool: CInt, head: [UInt8] = [], rest fd: CInt, name: String, limits: ArchiveReadLimits,
        kind: String = "a zip or 7z", advice: String, progress: (Int) -> Void = { _ in }
    ) throws {
        let capacity = capacity(within: limits)
        var shape = SpoolShape(name: name)
        var total: Int64 = 0
        var unchecked = Int64.max
        func write(_ bytes: UnsafeRawBufferPointer) throws {
            try shape.take(bytes)
            if unchecked >= roomCheckInterval {
                try checkRoom(of: spool, name: name)
                unchecked = 0
            }
            try ArchiveError.io(archive: name) { try Syscall.writeAll(bytes, to: spool, path: { name }) }
            total += Int64(bytes.count)
            unchecked += Int64(bytes.count)
        }
        try head.withUnsafeBytes { try write($0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while total <= capacity {
            // What a pipe holds now, not a full buffer: progress moves as the bytes come.
            let wanted = Int(min(Int64(buffer.count), capacity - total + 1))
            let count = try ArchiveError.io(archive: name) {
                try Syscall.retrying(.read, { name }) { Glibc.read(fd, buffer.baseAddress, wanted) }
            }
            if count == 0 { break }
            try write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            progress(count)
        }
        guard total <= capacity else { throw refusal("the stream", of: kind, name: name, capacity: capacity, advice: advice) }
    }

    /// The free space a spool leaves on its file system, for the system
    /// and other programs: 256 MiB.
    static let freeSpaceMargin: Int64 = 256 << 20
    /// How many bytes a spool writes between two looks at the free space: 4 MiB.
    static let roomCheckInterval: Int64 = 4 << 20

    /// Throws when the file system that holds `spool` has less than
    /// `margin` and ``roomCheckInterval`` bytes free for this process
    /// (``Syscall/freeBytes(of:path:)``), naming the temporary folder.
    static func checkRoom(of spool: CInt, name: String, keeping margin: Int64 = freeSpaceMargin) throws {
        let free = try ArchiveError.io(archive: name) {
            try Syscall.freeBytes(of: spool, path: { FileManager.default.temporaryDirectory.path })
        }
        guard free >= margin.saturatingAdd(roomCheckInterval) else {
            let folder = FileManager.default.temporaryDirectory.path
            throw ArchiveError(.io, archive: name, message: "the temporary folder \(folder) has \(free) bytes free, and a spool leaves at least "
                               + "\(margin) free; set TMPDIR to a folder with more room, or read the archive from a file")
        }
    }

    /// The refusal of `subject` (the stream, the archive written) of the
    /// archive `name`, once longer than `capacity` bytes, the most `kind`
    /// within the limits can take.
    static func refusal(_ subject: String, of kind: String = "a zip or 7z", name: String, capacity: Int64, advice: String) -> ArchiveError {
        ArchiveError(.limitExceeded, archive: name, message: "\(subject) is longer than \(capacity) bytes, the most \(kind) "
                     + "within the limits can take (contents, entries and path lengths)" + advice, limit: .maxBytes)
    }
}

private extension Int64 {
    func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    func saturatingMultiply(_ other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }
}

extension ArchiveReadLimits {
    /// The most bytes an input within these limits can take
    /// (`ArchiveSpool.capacity(within:)`, the bound of a zip or 7z
    /// stream's spool): what a program that keeps a stream whole, to read
    /// it more than once, may keep of it.
    public var streamCapacity: Int64 { ArchiveSpool.capacity(within: self) }
}
