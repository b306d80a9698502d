import FileWrapperKit
import Foundation

extension DocumentDisk {
    /// The versions of the document at `url`, oldest first, with what each
    /// costs, listed holding the document's shared lock (no save keeps or
    /// prunes one meanwhile).
    static func versions(of url: URL) async throws -> [DocumentVersion] {
        try await onBackgroundThread {
            try DocumentLock.holding(.shared, of: url) { _ in
                do {
                    return try VersionStore.entries(ofDocumentAt: url.path).map { DocumentVersion($0, size: try VersionStore.cost(of: $0)) }
                } catch {
                    throw DocumentError(.unreadable, url: url, "cannot list its versions in \(VersionStore.folderName(for: url.lastPathComponent))",
                                        underlying: error)
                }
            }
        }
    }

    /// Reads `version` of the document at `url` as `type` through the
    /// document's own reader, holding the document's shared lock.
    static func open<Document>(
        _ version: DocumentVersion, of url: URL, as type: UTType, with serialization: DocumentSerialization<Document>
    ) async throws -> Document {
        try await onBackgroundThread {
            try DocumentLock.holding(.shared, of: url) { _ in
                let entry = try existing(version, of: url)
                return try readHoldingLock(URL(fileURLWithPath: entry.path), as: type, with: serialization).document
            }
        }
    }

    /// Puts `version` in place of the document at `url`, as a save does:
    /// holding the exclusive lock, refused unless what is at `url` still
    /// has the stamp `expected` (when given); what is there is kept as a
    /// version first, so that restoring that one undoes this. Then reads the
    /// document restored, still holding the lock, and prunes as `versions`
    /// says (restoring keeps the version it replaces even with versions off).
    static func restore<Document>(
        _ version: DocumentVersion, of url: URL, as type: UTType, with serialization: DocumentSerialization<Document>,
        expected: DiskStamp?, recording: Locked<DiskStamp?>, versions: DocumentVersionPolicy
    ) async throws -> (document: Document, revision: DiskRevision) {
        try await onBackgroundThread {
            try DocumentLock.holding(.exclusive, of: url) { held in
                let entry = try existing(version, of: url)
                if let expected, DiskStamp(of: url) != expected {
                    throw DocumentError(.changedOnDisk, url: url,
                                        "changed on disk since it was opened or last saved (another program wrote it); version \(version.id) was not restored: revert to read it, or restore with force" + held.ordering)
                }
                let kept = try keepVersion(of: url)
                do {
                    try VersionStore.restore(entry, toDocumentAt: url)
                } catch {
                    if let kept { try? VersionStore.remove(kept) }
                    throw DocumentError(.writeFailed, url: url, "cannot restore version \(version.id); the document is unchanged", underlying: error)
                }
                let restored = try readHoldingLock(url, as: type, with: serialization)
                recording.withLock { $0 = restored.revision.stamp }
                versions.prune(ofDocumentAt: url)
                return restored
            }
        }
    }

    /// The store's entry of `version`, which must still be there.
    private static func existing(_ version: DocumentVersion, of url: URL) throws -> VersionStore.Entry {
        let entry: VersionStore.Entry?
        do {
            entry = try VersionStore.entry(version.id, ofDocumentAt: url.path)
        } catch {
            throw DocumentError(.unreadable, url: url, "cannot list its versions in \(VersionStore.folderName(for: url.lastPathComponent))",
                                underlying: error)
        }
        guard let entry else {
            throw DocumentError(.unreadable, url: url, "has no version \(version.id) (removed, or never kept)")
        }
        return entry
    }
}
