import FileWrapperKit
import Foundation

extension Manifest {
    /// The manifest of the archive file at `url`, read as it streams:
    /// nothing is extracted, and with `hashingContents` each file is hashed
    /// as its bytes are decoded. A hard link takes the size and digest of
    /// the file it names. Limits default to those of unpacking (4 GiB of
    /// contents, 100,000 entries). `progress` counts entries and bytes read.
    public init(
        archiveAt url: URL, formats: ArchiveReadFormats = .standard, limits: ArchiveReadLimits = .unpacking,
        hashingContents: Bool = true, progress: ManifestProgress? = nil
    ) throws {
        let handle = try ArchiveReadHandle.reading(url, formats: formats)
        self = try ArchiveManifestReader(handle: handle, limits: limits, hashingContents: hashingContents, progress: progress).read()
    }

    /// The manifest of the archive `data`; `name` stands for it in errors.
    public init(
        archiveData data: Data, name: String, formats: ArchiveReadFormats = .standard,
        limits: ArchiveReadLimits = .unpacking, hashingContents: Bool = true
    ) throws {
        let handle = try ArchiveReadHandle(name: name, formats: formats)
        try handle.open(data: data)
        self = try ArchiveManifestReader(handle: handle, limits: limits, hashingContents: hashingContents, progress: nil).read()
    }
}

/// Feeds an archive's entries to a ``ManifestBuilder`` as they stream.
struct ArchiveManifestReader {
    let handle: ArchiveReadHandle
    let limits: ArchiveReadLimits
    let hashingContents: Bool
    let progress: ManifestProgress?

    func read() throws -> Manifest {
        var entries: [ManifestEntry] = []
        // Files by normalized path, for the hard links that name them.
        var files: [[UInt8]: Int] = [:]
        try ArchiveEntries.forEach(in: handle, limits: limits, checkingContents: true) { archived, contents in
            var entry = ManifestEntry(archived)
            switch archived.kind {
            case .hardLink:
                let target = archived.hardLinkTarget ?? []
                guard let file = ManifestPath.normalized(target).flatMap({ files[$0] }) else {
                    throw ArchiveError(.corrupt, archive: handle.name, entry: archived.displayPath,
                                       message: "the hard link names \"\(PathDisplay.text(target))\", which is not an earlier file of the archive")
                }
                entry.size = entries[file].size
                entry.contentDigest = entries[file].contentDigest
            case .regularFile:
                if hashingContents {
                    (entry.contentDigest, entry.size) = try SHA256Hasher.digest(progress: progress, of: contents.forEachBlock)
                }
                if let path = ManifestPath.normalized(archived.pathBytes) {
                    files[path] = entries.count
                }
            default:
                break
            }
            entries.append(entry)
            progress?.count(entries: 1)
        }
        var builder = ManifestBuilder(source: Manifest.Source(kind: .archive, name: handle.name, format: handle.formatName))
        for entry in entries {
            try builder.add(entry)
        }
        return try builder.finish()
    }
}
