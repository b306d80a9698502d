import Foundation

extension DocumentController {
    /// Saves the document to its file, incrementally: the document gets
    /// what was last read or written as `existingFile`, and a bundle links
    /// the files it did not change. Refused if another program changed the
    /// file since it was read or last saved, unless `force` is set.
    ///
    /// - Parameter force: Save even over a change another program made.
    /// - Throws: ``DocumentError``: `closed`, `notEditable`, `noFileURL`,
    ///   `changedOnDisk`, or why the document could not be serialized or
    ///   written; the file is then as it was.
    public func save(force: Bool = false) async throws {
        try await exclusively {
            try checkEditable()
            try await write(to: try requireFileURL(), as: contentType, movingDocument: true, force: force)
        }
    }

    /// Saves the document to `url` as `contentType` (by default the type
    /// the extension of `url` names among the types the document writes,
    /// else its current type), replacing what is there, and makes `url`
    /// the document's file. Saving to the document's own file is ``save(force:)``.
    ///
    /// - Parameters:
    ///   - url: The new file.
    ///   - contentType: The type to save as; nil to choose it by extension.
    /// - Throws: ``DocumentError``: `closed`, `notEditable`,
    ///   `unwritableContentType`, `wrongKind`, or why the document could not
    ///   be serialized or written; what was at `url` is then as it was.
    public func save(to url: URL, contentType: UTType? = nil) async throws {
        try await exclusively {
            try checkEditable()
            let url = url.standardizedFileURL
            let type = contentType ?? serialization.contentType(forSaving: url, current: self.contentType)
            try await write(to: url, as: type, movingDocument: true, force: false)
        }
    }

    /// Writes a copy of the document to `url` as `contentType` (chosen as
    /// ``save(to:contentType:)`` chooses it); the document keeps its file
    /// and its unsaved changes. Allowed for a document opened for viewing only.
    ///
    /// - Parameters:
    ///   - url: The copy's file.
    ///   - contentType: The type to save as; nil to choose it by extension.
    /// - Throws: ``DocumentError``: `closed`, `unwritableContentType`,
    ///   `wrongKind`, or why the document could not be serialized or written;
    ///   what was at `url` is then as it was.
    public func saveCopy(to url: URL, contentType: UTType? = nil) async throws {
        try await exclusively {
            try checkOpen()
            let url = url.standardizedFileURL
            let type = contentType ?? serialization.contentType(forSaving: url, current: self.contentType)
            try await write(to: url, as: type, movingDocument: false, force: false)
        }
    }

    /// Saves the document to its file if it has one, can be saved and has
    /// unsaved changes; returns whether it wrote.
    ///
    /// - Returns: Whether it saved.
    /// - Throws: The save's ``DocumentError``, as ``save(force:)`` throws it.
    @discardableResult
    public func autosave() async throws -> Bool {
        try await exclusively {
            guard !isClosed, isEditable, let fileURL, hasUnsavedChanges else { return false }
            try await write(to: fileURL, as: contentType, movingDocument: true, force: false)
            return true
        }
    }

    /// Captures what the document is now (while edits wait), then
    /// serializes and writes it off the actor. Edits made meanwhile stay
    /// unsaved changes.
    func write(to url: URL, as type: UTType, movingDocument: Bool, force: Bool) async throws {
        try serialization.checkWritable(type, url: url)
        let pending: PendingSave
        let captured = changes.current
        do {
            pending = try serialization.capture(document, type)
        } catch {
            throw DocumentError(.serializationFailed, url: url, "cannot be saved: the document could not take its snapshot", underlying: error)
        }
        let inPlace = fileURL?.path == url.path
        let written = try await DocumentDisk.save(
            pending, to: url, as: type, previous: revision, expected: inPlace && !force ? revision?.stamp : nil, inPlace: inPlace,
            recording: movingDocument ? watcher.known : nil, versions: versionPolicy)
        guard movingDocument else { return }
        if !inPlace { watcher.watch(url) }
        fileURL = url
        contentType = type
        revision = written
        changes.saved(captured)
    }
}
