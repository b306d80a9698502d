import FileWrapperArchive
import FileWrapperKit
import Foundation

/// `pack FORMAT SOURCE ARCHIVE [--reproducible] [--deferred]`: packs the
/// bundle SOURCE into ARCHIVE; FORMAT is an extension such as `zip` or
/// `tar.gz`. `--deferred` leaves it to the kernel's writeback.
func pack(_ arguments: [String], _ flags: Set<String>) throws {
    guard let format = ArchiveFormat(name: arguments[0]) else {
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "unknown format \(arguments[0])"])
    }
    let wrapper = try FileWrapper(url: URL(fileURLWithPath: arguments[1]))
    let options = ArchiveWriteOptions(format: format, reproducible: flags.contains("--reproducible"), durability: durability(flags))
    try ArchiveWriter.write(wrapper, to: URL(fileURLWithPath: arguments[2]), options: options)
}

/// `unpack ARCHIVE DESTINATION [--force] [--count-resources]`: unpacks
/// ARCHIVE into DESTINATION, replacing it with `--force`. With
/// `--count-resources`, then prints this process's open descriptors and
/// threads before and after, whether the unpack failed or not:
/// `descriptors 4 4` and `threads 1 1`.
func unpack(_ arguments: [String], _ flags: Set<String>) throws {
    let options = ArchiveUnpackOptions(replacesExisting: flags.contains("--force"))
    let counts = flags.contains("--count-resources")
    if counts { startFirstThread() }
    let before = (descriptors: entries(in: "/proc/self/fd"), threads: entries(in: "/proc/self/task"))
    defer {
        if counts {
            let after = (descriptors: entries(in: "/proc/self/fd"), threads: entries(in: "/proc/self/task"))
            FileHandle.standardOutput.write(Data("descriptors \(before.descriptors) \(after.descriptors)\nthreads \(before.threads) \(after.threads)\n".utf8))
        }
    }
    try ArchiveUnpacker.unpack(archiveAt: URL(fileURLWithPath: arguments[0]), to: URL(fileURLWithPath: arguments[1]), options: options)
}

/// `edit-zip ZIP MEMBER SOURCE [--deferred]`: makes MEMBER of the zip ZIP hold the bytes
/// of the file SOURCE, in one atomic rewrite that copies the other members
/// as stored (``ZipArchiveEditor``); `--deferred` leaves it to the writeback.
func editZip(_ arguments: [String], _ flags: Set<String>) throws {
    let editor = try ZipArchiveEditor(contentsOf: URL(fileURLWithPath: arguments[0]))
    try editor.setContents(Data(contentsOf: URL(fileURLWithPath: arguments[2])), at: arguments[1])
    try editor.commit(options: ArchiveWriteOptions(format: .zip, durability: durability(flags)))
}

/// `--deferred`: the archive left to the kernel's writeback; otherwise synced.
private func durability(_ flags: Set<String>) -> Durability {
    flags.contains("--deferred") ? .deferred : .synced
}

/// `read-archive READER ARCHIVE`: reads ARCHIVE and every file's contents
/// with one of the library's readers, within its default limits: `entries`
/// (``ArchiveEntries``, as `wrapinspect dump --digests` and `cat` read),
/// `manifest` (``Manifest/init(reading:options:)``, as `wrapinspect digest`
/// and `diff` read; then prints `entries N` and `manifest-bytes N`, the
/// memory its entries take) or `tree` (``ArchiveReader``, into memory).
func readArchive(_ arguments: [String], _ flags: Set<String>) throws {
    let archive = URL(fileURLWithPath: arguments[1])
    switch arguments[0] {
    case "entries":
        try ArchiveEntries.forEach(in: archive) { _, contents in try contents.forEachBlock { _ in } }
    case "manifest":
        let manifest = try Manifest(reading: archive)
        // What the manifest's entries take: each one's storage and its path's heap buffer (32 bytes of header, 16-byte aligned).
        let bytes = manifest.entries.reduce(0) { $0 + MemoryLayout<ManifestEntry>.stride + (32 + $1.path.count + 15) / 16 * 16 }
        FileHandle.standardOutput.write(Data("entries \(manifest.entries.count)\nmanifest-bytes \(bytes)\n".utf8))
    case "tree":
        _ = try ArchiveReader.fileWrapper(contentsOf: archive)
    default:
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "unknown reader \(arguments[0])"])
    }
}

/// Starts a thread and joins it: ThreadSanitizer starts a thread of its own
/// with a process's first, which must be there before the threads are counted.
private func startFirstThread() {
    var thread = pthread_t()
    guard pthread_create(&thread, nil, { _ in nil }, nil) == 0 else { return }
    pthread_join(thread, nil)
}

/// How many names the directory at `path` holds; -1 if it cannot be read.
private func entries(in path: String) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? -1
}
