import Foundation
import Glibc
import SystemPackage

/// The versions of a document kept on disk (issue 37, item 3;
/// docs/versions.md): the folder `.<name>.fwk-versions` beside the
/// document (the name cut as ``Replacement/prefix(of:)`` cuts it, so that
/// it fits `NAME_MAX`), one entry a version, named by the UTC time it was
/// kept, to the nanosecond (`20261202T133316.123456789Z`): names sort by
/// time, and a new one is always later than the last, so they are unique.
///
/// An entry is the document as it was, as a tree (or file) of hard links
/// to its files' inodes (``keep(documentAt:)``): keeping costs directory
/// entries, and a version costs the blocks of the files the next save
/// changed, which only it still holds. A version is built under
/// `.<id>.partial` and renamed into place, so a listing never shows half
/// a version.
///
/// No locking here: the document layer calls this holding the document's
/// lock (exclusive to keep, prune and restore, shared to list and read);
/// `wrapinspect`, which has no document layer, lists without it and
/// tolerates an entry pruned meanwhile.
package enum VersionStore {
    /// A version in the store.
    package struct Entry: Sendable, Hashable {
        /// The entry's name: the UTC time it was kept.
        package let id: String
        /// That time, in nanoseconds since 1970.
        package let nanoseconds: Int64
        /// The entry's path.
        package let path: String

        /// That time as a date.
        package var date: Date { Date(timeIntervalSince1970: Double(nanoseconds) / 1e9) }
    }

    private static let partialSuffix = ".partial"

    /// The name of the versions folder of the document named `name`.
    package static func folderName(for name: String) -> String {
        "." + Replacement.prefix(of: name) + ".fwk-versions"
    }

    /// The path of the versions folder of the document at `documentPath`.
    package static func folderPath(ofDocumentAt documentPath: String) -> String {
        let (parent, name) = TreeReader.split(documentPath)
        return PathDisplay.join(parent, [folderName(for: name)])
    }

    /// The versions of the document at `documentPath`, oldest first; none
    /// when it has no versions folder. Names that are not a version's
    /// (a partial one, anything else put there) are left out.
    package static func entries(ofDocumentAt documentPath: String) throws(FileWrapperError) -> [Entry] {
        let folder = folderPath(ofDocumentAt: documentPath)
        let fd: CInt
        do {
            fd = try Syscall.open(folder, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: { folder })
        } catch where error.errno == .noSuchFileOrDirectory {
            return []
        }
        defer { Syscall.close(fd) }
        return try entries(in: fd, folder: folder)
    }

    private static func entries(in fd: CInt, folder: String) throws(FileWrapperError) -> [Entry] {
        try Syscall.names(inDirectory: fd, path: { folder })
            .compactMap { bytes in
                let id = String(decoding: bytes, as: UTF8.self)
                return nanoseconds(ofID: id).map { Entry(id: id, nanoseconds: $0, path: PathDisplay.join(folder, [id])) }
            }
            .sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
    }

    /// The version `id` of the document at `documentPath`, if it is there.
    package static func entry(_ id: String, ofDocumentAt documentPath: String) throws(FileWrapperError) -> Entry? {
        try entries(ofDocumentAt: documentPath).first { Array($0.id.utf8) == Array(id.utf8) }
    }

    /// Keeps the document at `url` as it is now as a new version: makes the
    /// versions folder if need be (mode 0777 less the umask), removes what
    /// a killed keeper left (`.<id>.partial`: the caller holds the
    /// document's exclusive lock, so no one else is keeping), reads the
    /// document's tree (`FileWrapper(url:)`, contents not read) and writes
    /// it as `.<id>.partial` with the document as its original, so every
    /// file is a hard link (copied only where the file system refuses a
    /// link), then renames it to `<id>` (`RENAME_NOREPLACE`).
    ///
    /// - Parameters:
    ///   - url: The document.
    ///   - now: The time to name the version by, in nanoseconds since 1970;
    ///     a later one is taken if the last version is not older.
    /// - Returns: The version kept.
    /// - Throws: The error of the call that failed; what was made of the
    ///   new version is removed, and the document is untouched.
    package static func keep(documentAt url: URL, now: Int64 = currentNanoseconds()) throws -> Entry {
        let documentPath = url.path
        let (parentPath, name) = TreeReader.split(documentPath)
        let folderName = folderName(for: name)
        let folder = PathDisplay.join(parentPath, [folderName])
        let parent = try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
        defer { Syscall.close(parent) }
        if Syscall.invoke(.mkdirat, { mkdirat(parent, folderName, 0o777) }) != 0, Glibc.errno != EEXIST {
            throw FileWrapperError(systemCall: .mkdirat, path: folder, errno: Errno(rawValue: Glibc.errno))
        }
        let fd = try Syscall.openDirectory(folderName, in: parent, path: { folder })
        defer { Syscall.close(fd) }
        removePartials(in: fd, folder: folder)
        var stamp: Int64 = max(now, (try entries(in: fd, folder: folder).last?.nanoseconds ?? 0) + 1)
        let partial = "." + id(nanoseconds: stamp) + partialSuffix
        let tree = try FileWrapper(url: url)
        do {
            try tree.write(to: URL(fileURLWithPath: PathDisplay.join(folder, [partial])), options: [], originalContentsURL: url)
            while try !publish(partial, as: id(nanoseconds: stamp), in: fd, folder: folder) {
                stamp += 1
            }
            return Entry(id: id(nanoseconds: stamp), nanoseconds: stamp, path: PathDisplay.join(folder, [id(nanoseconds: stamp)]))
        } catch {
            try? TreeRemover.remove(Array(partial.utf8), in: fd, parentPath: folder)
            throw error
        }
    }

    /// Renames the partial version to `id` unless a version has that name
    /// (`RENAME_NOREPLACE`); returns whether it did.
    private static func publish(_ partial: String, as id: String, in fd: CInt, folder: String) throws(FileWrapperError) -> Bool {
        do {
            try Replacement.move(partial, toNew: id, in: fd, parentPath: folder)
            return true
        } catch where error.errno == .fileExists {
            return false
        }
    }

    /// Removes `entry` and everything below it.
    ///
    /// - Parameter entry: A version listed by ``entries(ofDocumentAt:)``.
    /// - Throws: The error of the call that failed.
    package static func remove(_ entry: Entry) throws(FileWrapperError) {
        let (folder, id) = TreeReader.split(entry.path)
        let fd = try Syscall.open(folder, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: { folder })
        defer { Syscall.close(fd) }
        try TreeRemover.remove(Array(id.utf8), in: fd, parentPath: folder)
    }

    /// Removes the versions of the document at `documentPath` beyond the
    /// `count` newest and those kept before `oldest` (nanoseconds since
    /// 1970), and what killed keepers left; the folder too once it is empty.
    /// Best effort: what cannot be removed now is tried again next time.
    ///
    /// - Parameters:
    ///   - documentPath: The document.
    ///   - count: How many versions to keep at most; nil for no limit.
    ///   - oldest: The time before which versions go; nil for no limit.
    package static func prune(ofDocumentAt documentPath: String, keepingAtMost count: Int?, keptSince oldest: Int64?) {
        let folder = folderPath(ofDocumentAt: documentPath)
        guard let fd = try? Syscall.open(folder, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: { folder }) else { return }
        defer { Syscall.close(fd) }
        removePartials(in: fd, folder: folder)
        guard let all = try? entries(in: fd, folder: folder) else { return }
        let tooMany = count.map { max(0, all.count - max(0, $0)) } ?? 0
        for (index, entry) in all.enumerated() where index < tooMany || oldest.map({ entry.nanoseconds < $0 }) == true {
            try? TreeRemover.remove(Array(entry.id.utf8), in: fd, parentPath: folder)
        }
        if (try? Syscall.names(inDirectory: fd, path: { folder }))?.isEmpty == true {
            let (parentPath, name) = TreeReader.split(folder)
            if let parent = try? Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath }) {
                _ = Syscall.invoke(.unlinkat) { unlinkat(parent, name, AT_REMOVEDIR) }
                Syscall.close(parent)
            }
        }
    }

    /// Puts `entry` in place of the document at `url`, atomically and
    /// synced (`FileWrapper.write` with `.atomic`), its files hard-linked
    /// from the version, so that restoring costs no copy.
    ///
    /// - Parameters:
    ///   - entry: The version to restore.
    ///   - url: The document.
    /// - Throws: The write's error; the document is then as it was.
    package static func restore(_ entry: Entry, toDocumentAt url: URL) throws {
        let version = URL(fileURLWithPath: entry.path)
        try FileWrapper(url: version).write(to: url, options: .atomic, originalContentsURL: version)
    }

    /// The bytes on disk that only `entry` holds, which removing it would
    /// free: its directories' blocks, and the blocks of each file whose
    /// every link is inside it (`st_blocks` times 512, through one walk).
    ///
    /// - Parameter entry: A version.
    /// - Returns: The bytes, 0 for a version that shares all its files.
    /// - Throws: The error of the call that failed (the entry was pruned
    ///   meanwhile, say).
    package static func cost(of entry: Entry) throws(FileWrapperError) -> Int64 {
        let path = entry.path
        var root = stat()
        try Syscall.retrying(.fstatat, { path }) { fstatat(AT_FDCWD, path, &root, AT_SYMLINK_NOFOLLOW) }
        var files: [InodeKey: (links: Int, info: stat)] = [:]
        var total: Int64 = 0
        if FileKind(mode: root.st_mode) == .directory {
            total += Int64(root.st_blocks) * 512
            var walk = try DirectoryWalk<Void, [UInt8]>(root: path)
            walk.push((), children: try Syscall.names(inDirectory: walk.cursor.current, path: { path }))
            while let (name, _) = try walk.next() {
                let cursor = walk.cursor
                let info = try Syscall.status(ofBytes: name, in: cursor.current, path: { cursor.path(bytes: name) })
                if FileKind(mode: info.st_mode) == .directory {
                    total += Int64(info.st_blocks) * 512
                    try walk.enter(name)
                    walk.push((), children: try Syscall.names(inDirectory: cursor.current, path: { cursor.path() }))
                } else {
                    files[InodeKey(info), default: (0, info)].links += 1
                }
            }
        } else {
            files[InodeKey(root)] = (1, root)
        }
        for (links, info) in files.values where links >= Int(info.st_nlink) {
            total += Int64(info.st_blocks) * 512
        }
        return total
    }

    private struct InodeKey: Hashable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// Removes the partial versions in the versions folder `fd`.
    private static func removePartials(in fd: CInt, folder: String) {
        let suffix = Array(partialSuffix.utf8)
        for name in (try? Syscall.names(inDirectory: fd, path: { folder })) ?? [] where name.first == UInt8(ascii: ".") && name.count > suffix.count && Array(name.suffix(suffix.count)) == suffix {
            try? TreeRemover.remove(name, in: fd, parentPath: folder)
        }
    }

    /// The time now, in nanoseconds since 1970 (`clock_gettime(CLOCK_REALTIME)`).
    package static func currentNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The name of a version kept at `nanoseconds`: `YYYYMMDDThhmmss.nnnnnnnnnZ`, UTC.
    package static func id(nanoseconds: Int64) -> String {
        let clamped = max(0, nanoseconds)
        var seconds = time_t(clamped / 1_000_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02d.%09lldZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, clamped % 1_000_000_000)
    }

    /// The time a version's name says, or nil for a name that is not a
    /// version's.
    package static func nanoseconds(ofID id: String) -> Int64? {
        let bytes = Array(id.utf8)
        guard bytes.count == 26, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "."), bytes[25] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), let hour = number(9..<11),
              let minute = number(11..<13), let second = number(13..<15), let fraction = number(16..<25),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = Int64(timegm(&parts))
        guard seconds >= 0, Self.id(nanoseconds: seconds * 1_000_000_000 + Int64(fraction)) == id else { return nil }
        return seconds * 1_000_000_000 + Int64(fraction)
    }
}
