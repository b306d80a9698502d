import FileWrapperDocument

// checklist-example: a checklist app without a user interface. It opens
// the checklist FILE (or starts a new one), performs each ACTION as a
// user's tap would, on the main actor with the document's undo manager,
// saves if anything changed, closes the document, and prints the list.
//
//   checklist-example Groceries.checklist add:Apples add:Bread toggle:1 move:2:0 delete:1 undo redo
//
// Actions: add:TITLE, toggle:N, delete:N, move:N:TO (N counts from 1;
// TO is an offset from 0, as SwiftUI's onMove gives), undo, redo.
// Exit status: 0 success, 2 an error, which names the file or the action.

/// What ends a session: a message naming the file or the action.
struct Failure: Error {
    let message: String
}

/// The offset of item `text` (counted from 1) in `document`.
@MainActor
func itemOffset(_ text: Substring, in document: ChecklistDocument, action: String) throws(Failure) -> Int {
    guard let number = Int(text), number >= 1, number <= document.checklist.items.count else {
        throw Failure(message: "\(action): there is no item \(text) (the list has \(document.checklist.items.count))")
    }
    return number - 1
}

/// Performs `action` on `document` as a user's tap would.
@MainActor
func perform(_ action: String, on document: ChecklistDocument, undoManager: UndoManager) throws(Failure) {
    let parts = action.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    switch (parts.first ?? "", parts.count) {
    case ("add", 2...):
        document.addItem(titled: parts.dropFirst().joined(separator: ":"), undoManager: undoManager)
    case ("toggle", 2):
        document.toggleItem(document.checklist.items[try itemOffset(parts[1], in: document, action: action)], undoManager: undoManager)
    case ("delete", 2):
        document.deleteItems(atOffsets: [try itemOffset(parts[1], in: document, action: action)], undoManager: undoManager)
    case ("move", 3):
        guard let destination = Int(parts[2]), (0...document.checklist.items.count).contains(destination) else {
            throw Failure(message: "\(action): \(parts[2]) is not an offset in 0...\(document.checklist.items.count)")
        }
        document.moveItems(fromOffsets: [try itemOffset(parts[1], in: document, action: action)], toOffset: destination, undoManager: undoManager)
    case ("undo", 1):
        guard undoManager.canUndo else { throw Failure(message: "\(action): there is nothing to undo") }
        undoManager.undo()
    case ("redo", 1):
        guard undoManager.canRedo else { throw Failure(message: "\(action): there is nothing to redo") }
        undoManager.redo()
    default:
        throw Failure(message: "\(action): not an action (add:TITLE, toggle:N, delete:N, move:N:TO, undo, redo)")
    }
}

/// One session, as an app opens a document, edits, saves and closes it:
/// the list as saved. When it returns, the document is gone. Closing
/// clears the undo manager, whose actions (the model's undo handlers)
/// capture it; a session that fails drops them too, unsaved.
@MainActor
func session(path: String, actions: [String]) async throws(Failure) -> [ChecklistItem] {
    let url = URL(fileURLWithPath: path)
    let controller: DocumentController<ChecklistDocument>
    do {
        if FileManager.default.fileExists(atPath: path) {
            controller = try await DocumentController(contentsOf: url)
        } else {
            controller = DocumentController(newDocument: ChecklistDocument())
        }
    } catch {
        throw Failure(message: "\(error)")
    }
    let document = await controller.document
    let undoManager = controller.undoManager
    do {
        for action in actions {
            try perform(action, on: document, undoManager: undoManager)
        }
        if await controller.fileURL == nil {
            try await controller.save(to: url)
        }
        try await controller.close()
    } catch {
        undoManager.removeAllActions()
        throw error as? Failure ?? Failure(message: "\(error)")
    }
    return document.checklist.items
}

let arguments = Array(CommandLine.arguments.dropFirst())
do throws(Failure) {
    guard let path = arguments.first else {
        throw Failure(message: "usage: checklist-example FILE [add:TITLE | toggle:N | delete:N | move:N:TO | undo | redo]...")
    }
    do {
        try UTType.registerChecklistType()
    } catch {
        throw Failure(message: "\(error)")
    }
    let items = try await session(path: path, actions: Array(arguments.dropFirst()))
    for (number, item) in items.enumerated() {
        print("\(number + 1) [\(item.isChecked ? "x" : " ")] \(item.title)")
    }
} catch {
    FileHandle.standardError.write(Data("checklist-example: \(error.message)\n".utf8))
    exit(2)
}
