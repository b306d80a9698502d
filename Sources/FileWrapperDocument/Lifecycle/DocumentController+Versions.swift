import FileWrapperKit
import Foundation

extension DocumentController {
    /// Sets which versions saves keep, as `NSFileVersion` keeps a
    /// document's (docs/versions.md). With versions kept, every save in
    /// place (``save(force:)``, ``autosave()``, ``close(saving:)``,
    /// ``restore(_:force:)``) first keeps the version it replaces, in the
    /// folder `.<name>.fwk-versions` beside the document, as hard links to
    /// its files: a bundle's version costs the files the save changed.
    /// Should keeping fail, the save fails and writes nothing. Versions
    /// the policy does not keep are removed after each save.
    ///
    /// - Parameter policy: ``DocumentVersionPolicy/off`` (the default) or
    ///   ``DocumentVersionPolicy/keeping(count:age:)``.
    public func setVersionPolicy(_ policy: DocumentVersionPolicy) {
        versionPolicy = policy
    }

    /// The versions of the document kept so far, oldest first: by this
    /// controller, others, or other processes. Listed holding the
    /// document's shared lock.
    ///
    /// - Returns: Each version's name, date and the bytes only it holds;
    ///   none for a new document or one that kept none.
    /// - Throws: ``DocumentError`` `closed` once closed; `unreadable` when
    ///   the versions folder cannot be read.
    public func versions() async throws -> [DocumentVersion] {
        try await exclusively {
            try checkOpen()
            guard let fileURL else { return [] }
            return try await DocumentDisk.versions(of: fileURL)
        }
    }

    /// Reads `version` as a document, through the document type's own
    /// reader, holding the document's shared lock; the controller's
    /// document is not changed. What the reader leaves to be read lazily
    /// is read from the version later, and fails if the version was
    /// removed meanwhile.
    ///
    /// - Parameter version: One of ``versions()``.
    /// - Returns: The document as that version holds it.
    /// - Throws: ``DocumentError``: `closed`; `unreadable` when the version
    ///   is gone or cannot be read; `documentRefused` when the document
    ///   refuses it.
    public func document(of version: DocumentVersion) async throws -> Document {
        try await exclusively {
            try checkOpen()
            return try await DocumentDisk.open(version, of: try requireFileURL(), as: contentType, with: serialization)
        }
    }

    /// Puts `version` back as the document, as a save: holding the
    /// document's exclusive lock, refused with `changedOnDisk` if another
    /// program saved since it was read or last saved (unless `force`), and
    /// keeping the version it replaces (even with versions off), so that
    /// restoring that one undoes this. The version's files are hard-linked,
    /// not copied. Unsaved changes are dropped, and ``undoManager``'s actions,
    /// as ``revert()`` drops them; a reference document is read into a new
    /// object: fetch ``document`` again afterwards.
    ///
    /// - Parameters:
    ///   - version: One of ``versions()``.
    ///   - force: Restore even over a change made on disk by another.
    /// - Throws: ``DocumentError``: `closed`, `notEditable`, `changedOnDisk`;
    ///   `unreadable` when the version is gone; `writeFailed` when it
    ///   cannot be written or the current version cannot be kept (the
    ///   document is then unchanged); `documentRefused` when the document
    ///   refuses the version restored, which is then on disk (the version
    ///   it replaced is kept): revert, or restore that one.
    public func restore(_ version: DocumentVersion, force: Bool = false) async throws {
        try await exclusively {
            try checkEditable()
            let url = try requireFileURL()
            let restored = try await DocumentDisk.restore(
                version, of: url, as: contentType, with: serialization, expected: force ? nil : revision?.stamp,
                recording: watcher.known, versions: versionPolicy)
            content.withLock { $0 = restored.document }
            revision = restored.revision
            await undoManager.removeAllActions()
            changes.reverted()
        }
    }
}
