import FileWrapperKit

/// What a document went through since it was read or saved, counted as
/// `NSDocument` counts it for SwiftUI: an edit, an undoable change, its
/// undo and its redo each count as a change, and a document undone or
/// redone back to the version last read or saved has no unsaved changes.
///
/// Each version of the document has a number; the versions that undo can
/// reach are a stack, those that redo can reach another. Written by the
/// ``DocumentController`` and by its ``UndoManager`` on the main actor, so
/// behind a lock.
final class DocumentChanges: Sendable {
    private struct State {
        /// How many changes were counted; never decreases.
        var count = 0
        /// The versions undo can go back through, the current one last.
        var undoable = [0]
        /// The versions redo can go forward through, the next one last.
        var redoable: [Int] = []
        /// The version last read or saved.
        var saved = 0
        var lastVersion = 0

        mutating func newVersion() -> Int {
            lastVersion += 1
            return lastVersion
        }
    }

    private let state = Locked(State())

    /// How many changes were counted; never decreases.
    var count: Int { state.withLock { $0.count } }

    /// The version the document is at.
    var current: Int { state.withLock { $0.undoable[$0.undoable.count - 1] } }

    /// Whether the document is at another version than the one last read or saved.
    var hasUnsavedChanges: Bool { state.withLock { $0.undoable[$0.undoable.count - 1] != $0.saved } }

    /// An edit that the undo manager does not know of: every version
    /// reached so far, by undo or redo, now has it too, so none is the
    /// saved one any more.
    func edited() {
        state.withLock { state in
            state.count += 1
            state.undoable = state.undoable.map { _ in state.newVersion() }
            state.redoable = state.redoable.map { _ in state.newVersion() }
        }
    }

    /// An undoable change: a new version, and nothing to redo.
    func done() {
        state.withLock { state in
            state.count += 1
            state.undoable.append(state.newVersion())
            state.redoable.removeAll()
        }
    }

    /// An undo: back to the version before.
    func undone() {
        state.withLock { state in
            state.count += 1
            if state.undoable.count > 1 {
                state.redoable.append(state.undoable.removeLast())
            } else {
                state.undoable = [state.newVersion()]
            }
        }
    }

    /// A redo: forward to the version undone last.
    func redone() {
        state.withLock { state in
            state.count += 1
            state.undoable.append(state.redoable.popLast() ?? state.newVersion())
        }
    }

    /// Marks `version` as the one read or saved.
    func saved(_ version: Int) {
        state.withLock { $0.saved = version }
    }

    /// A document read again: one version, saved, and no history.
    func reverted() {
        state.withLock { state in
            let version = state.newVersion()
            state.undoable = [version]
            state.redoable = []
            state.saved = version
        }
    }
}
