import FileWrapperDocument

// checklist-example: a checklist app without a user interface. It opens
// the checklist FILE (or starts a new one), performs each ACTION as a
// user's tap would, on the main actor with the document's undo manager,
// saves if anything changed, and prints the list.
//
//   checklist-example Groceries.checklist add:Apples add:Bread toggle:1 move:2:0 delete:1 undo redo
//
// Actions: add:TITLE, toggle:N, delete:N, move:N:TO (N counts from 1;
// TO is an offset from 0, as SwiftUI's onMove gives), undo, redo.
// Exit status: 0 success, 2 an error, which names the file or the action.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("checklist-example: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    fail("usage: checklist-example FILE [add:TITLE | toggle:N | delete:N | move:N:TO | undo | redo]...")
}
do {
    try UTType.registerChecklistType()
} catch {
    fail("\(error)")
}

let url = URL(fileURLWithPath: path)
let controller: DocumentController<ChecklistDocument>
do {
    if FileManager.default.fileExists(atPath: path) {
        controller = try await DocumentController(contentsOf: url)
    } else {
        controller = DocumentController(newDocument: ChecklistDocument())
    }
} catch {
    fail("\(error)")
}

let document = await controller.document
let undoManager = controller.undoManager

/// The offset of item `text` (counted from 1), or a failure naming the action.
func itemOffset(_ text: Substring, in action: String) -> Int {
    guard let number = Int(text), number >= 1, number <= document.checklist.items.count else {
        fail("\(action): there is no item \(text) (the list has \(document.checklist.items.count))")
    }
    return number - 1
}

for action in arguments.dropFirst() {
    let parts = action.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    switch (parts.first ?? "", parts.count) {
    case ("add", 2...):
        document.addItem(titled: parts.dropFirst().joined(separator: ":"), undoManager: undoManager)
    case ("toggle", 2):
        document.toggleItem(document.checklist.items[itemOffset(parts[1], in: action)], undoManager: undoManager)
    case ("delete", 2):
        document.deleteItems(atOffsets: [itemOffset(parts[1], in: action)], undoManager: undoManager)
    case ("move", 3):
        guard let destination = Int(parts[2]), (0...document.checklist.items.count).contains(destination) else {
            fail("\(action): \(parts[2]) is not an offset in 0...\(document.checklist.items.count)")
        }
        document.moveItems(fromOffsets: [itemOffset(parts[1], in: action)], toOffset: destination, undoManager: undoManager)
    case ("undo", 1):
        guard undoManager.canUndo else { fail("\(action): there is nothing to undo") }
        undoManager.undo()
    case ("redo", 1):
        guard undoManager.canRedo else { fail("\(action): there is nothing to redo") }
        undoManager.redo()
    default:
        fail("\(action): not an action (add:TITLE, toggle:N, delete:N, move:N:TO, undo, redo)")
    }
}

do {
    if await controller.fileURL == nil {
        try await controller.save(to: url)
    } else {
        try await controller.autosave()
    }
} catch {
    fail("\(error)")
}
for (number, item) in document.checklist.items.enumerated() {
    print("\(number + 1) [\(item.isChecked ? "x" : " ")] \(item.title)")
}
