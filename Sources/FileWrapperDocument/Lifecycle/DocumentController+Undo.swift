import FileWrapperKit

extension DocumentController {
    /// Registers, with ``undoManager``, the undo of an edit that took a
    /// value document from `old` to `new`: what SwiftUI registers for a
    /// `FileDocument` whenever its value changes. The edit runs on the
    /// controller, so the action reaches the main-actor undo manager
    /// through its queue of arriving actions, before any later call there.
    nonisolated func registerUndo(ofEditFrom old: Document, to new: Document) {
        // Weakly: the undo manager holds its actions, which would hold it.
        undoManager.registerArrivingUndo(withTarget: content) { [content, weak undoManager] in
            guard let undoManager else { return }
            Self.restore(old, replacing: new, in: content, undoManager: undoManager)
        }
    }

    /// Puts `value` back as the document, as an undo or redo of a value
    /// edit does, and registers the way back to `current`.
    @MainActor
    static func restore(_ value: Document, replacing current: Document, in content: Locked<Document>, undoManager: UndoManager) {
        content.withLock { $0 = value }
        undoManager.registerUndo(withTarget: content) { [weak undoManager] content in
            guard let undoManager else { return }
            restore(current, replacing: value, in: content, undoManager: undoManager)
        }
    }
}
