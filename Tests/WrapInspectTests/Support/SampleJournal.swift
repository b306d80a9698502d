import Foundation
import Glibc

/// A private copy of `Fixtures/Travel.journal` in a fresh temporary
/// directory, one per test, so that tests run in parallel and may change
/// their copy. The directory is removed when the value goes away.
///
/// The copy is made the same on every machine: `Drafts/` (which Git cannot
/// hold) is created, and modes are set as a 022 umask would leave them,
/// whatever the checkout's umask was: directories 0755, files 0644,
/// `Scripts/export.sh` 0755.
final class SampleJournal {
    /// The repository's sample, found from this source file's path.
    static let fixtureURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // WrapInspectTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package
        .appendingPathComponent("Fixtures/Travel.journal")

    /// The temporary directory that holds the copy; commands run here.
    let directory: URL
    /// The copy, `<directory>/Travel.journal`.
    let url: URL

    /// Copies the sample into a new directory named after `test`.
    init(for test: String = #function) throws {
        let name = test.prefix { $0.isLetter || $0.isNumber }
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("WrapInspectTests-\(name)-\(UUID().uuidString)")
        url = directory.appendingPathComponent("Travel.journal")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: Self.fixtureURL, to: url)
        try FileManager.default.createDirectory(at: url.appendingPathComponent("Drafts"), withIntermediateDirectories: true)
        try normalizeModes()
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The URL of `path` inside the copy.
    func url(_ path: String) -> URL {
        url.appendingPathComponent(path)
    }

    /// Creates or replaces the regular file at `path` in the copy: `size`
    /// bytes long but sparse (nothing written), mode 0644.
    func createFile(_ path: String, size: UInt64 = 0) throws {
        let file = url(path)
        try Data().write(to: file)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: size)
        try handle.close()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    }

    /// Creates an empty file at `name` (raw bytes, not necessarily UTF-8)
    /// inside the copy's directory `parent`, with `open(2)`; mode 0644.
    func createFile(named name: [UInt8], in parent: String) throws {
        let path = Array(url(parent).path.utf8) + [UInt8(ascii: "/")] + name + [0]
        let fd = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        guard fchmod(fd, 0o644) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// The sizes of the copy's regular files, added up (symlinks not followed).
    func totalFileBytes() throws -> Int64 {
        var total: Int64 = 0
        for path in try FileManager.default.subpathsOfDirectory(atPath: url.path) {
            let attributes = try FileManager.default.attributesOfItem(atPath: url(path).path)
            if attributes[.type] as? FileAttributeType == .typeRegular {
                total += (attributes[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        return total
    }

    private func normalizeModes() throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        for path in try FileManager.default.subpathsOfDirectory(atPath: url.path) {
            let item = url(path).path
            let mode: Int
            switch try FileManager.default.attributesOfItem(atPath: item)[.type] as? FileAttributeType {
            case .typeDirectory?: mode = 0o755
            case .typeRegular?: mode = path == "Scripts/export.sh" ? 0o755 : 0o644
            default: continue  // symlinks: chmod would follow them
            }
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: item)
        }
    }
}
