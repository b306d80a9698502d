import Foundation

extension DocumentController {
    /// Reads the document again from its file, dropping unsaved changes
    /// and what ``undoManager`` could undo or redo. A reference document is read into a new object: fetch ``document``
    /// again afterwards.
    ///
    /// - Throws: ``DocumentError``: `closed`, `noFileURL`, or why the file
    ///   cannot be read or the document refuses it; the document is then as
    ///   it was.
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
    ///
    /// - Parameter newName: The file's new name, in its folder.
    /// - Throws: ``DocumentError``: `closed`, `notEditable`, `noFileURL`,
    ///   `invalidName`, or `writeFailed` (a file of that name exists, say).
    public func rename(to newName: String) async throws {
        try await exclusively {
            try checkEditable()
            let url = try requireFileURL()
            guard !newName.isEmpty, newName != ".", newName != "..", !newName.contains("/"), !newName.contains("\0") else {
                throw DocumentError(.invalidName, url: url, "cannot be renamed to \"\(newName)\": that is not a file name")
            }
            // Our own rename is no change from outside.
            watcher.watch(nil)
            defer { watcher.watch(fileURL) }
            fileURL = try await DocumentDisk.rename(url, to: newName, revision: revision, storage: DocumentStorage(contentType))
        }
    }

    /// Closes the document: every later operation that uses its file, an
    /// edit (``update(_:)``) and ``updateChangeCount(_:)`` are refused with
    /// ``DocumentError/Code/closed``, and ``undoManager`` forgets what could be undone or redone, as
    /// `NSDocument` clears its undo manager when it closes. That also frees
    /// the actions that hold the undo manager (an Apple-style model's undo
    /// handler captures it), which would otherwise keep it and its document
    /// alive.
    ///
    /// With `saving` (the default), unsaved changes are saved first (for a
    /// document with a file that can be saved); if that save fails, the
    /// document stays open, with its undo, and the error is thrown. A new
    /// document that was never saved is closed with its changes dropped.
    /// Without `saving`, unsaved changes are dropped and the file is left
    /// as it is. The streams of ``diskChanges()`` end, and the file is no
    /// longer watched.
    ///
    /// - Parameter saving: Whether to save unsaved changes first.
    /// - Throws: The save's ``DocumentError``; the document is then still open.
    public func close(saving: Bool = true) async throws {
        try await exclusively {
            guard !isClosed else { return }
            if saving, isEditable, let fileURL, hasUnsavedChanges {
                try await write(to: fileURL, as: contentType, movingDocument: true, force: false)
            }
            isClosed = true
            revision = nil
            await watcher.close()
            await undoManager.removeAllActions()
        }
    }

    /// Counts a change that ``undoManager`` did not record, as
    /// `UIDocument.updateChangeCount(_:)` does: for a reference document
    /// changed without registering undo, whose change would otherwise go
    /// unsaved by ``autosave()`` and ``close(saving:)``.
    /// Throws ``DocumentError/Code/closed`` once the document is closed.
    ///
    /// - Parameter change: What happened to the document.
    /// - Throws: ``DocumentError`` `closed`.
    public func updateChangeCount(_ change: DocumentChangeKind) throws {
        try checkOpen()
        switch change {
        case .done: changes.done()
        case .undone: changes.undone()
        case .redone: changes.redone()
        case .cleared: changes.saved(changes.current)
        }
    }
}

/// A change ``DocumentController/updateChangeCount(_:)`` counts, as
/// `UIDocument.ChangeKind` names them.
public enum DocumentChangeKind: Sendable, Hashable {
    /// A change was made: the document has unsaved changes.
    case done
    /// The last change done was undone: back at the saved version, the
    /// document has none.
    case undone
    /// The change undone last was redone.
    case redone
    /// The document as it is now counts as saved.
    case cleared
}
