import Foundation

extension DocumentController {
    /// Reads the document again from its file, dropping unsaved changes
    /// and what ``undoManager`` could undo or redo. A reference document is read into a new object: fetch ``document``
    /// again afterwards.
    public func revert() async throws {
        try await exclusively {
            try checkOpen()
            let opened = try await DocumentDisk.open(try requireFileURL(), as: contentType, with: serialization)
            content.withLock { $0 = opened.document }
            revision = opened.revision
            await undoManager.removeAllActions()
            changes.reverted()
        }
    }

    /// Renames the document's file to `newName` in the same directory,
    /// never replacing a file of that name; ``fileURL`` follows. The content
    /// type stays what it was.
    public func rename(to newName: String) async throws {
        try await exclusively {
            try checkEditable()
            let url = try requireFileURL()
            guard !newName.isEmpty, newName != ".", newName != "..", !newName.contains("/"), !newName.contains("\0") else {
                throw DocumentError(.invalidName, url: url, "cannot be renamed to \"\(newName)\": that is not a file name")
            }
            fileURL = try await DocumentDisk.rename(url, to: newName, revision: revision, storage: DocumentStorage(contentType))
        }
    }

    /// Saves unsaved changes (for a document with a file that can be
    /// saved), then closes the document: every later operation is refused,
    /// and ``undoManager`` forgets what could be undone or redone, as
    /// `NSDocument` clears its undo manager when it closes. That also frees
    /// the actions that hold the undo manager (an Apple-style model's undo
    /// handler captures it), which would otherwise keep it and its document
    /// alive. If that save fails, the document stays open, with its undo,
    /// and the error is thrown. A new document that was never saved is
    /// closed with its changes dropped.
    public func close() async throws {
        try await exclusively {
            guard !isClosed else { return }
            if isEditable, let fileURL, hasUnsavedChanges {
                try await write(to: fileURL, as: contentType, movingDocument: true, force: false)
            }
            isClosed = true
            revision = nil
            await undoManager.removeAllActions()
        }
    }
}
