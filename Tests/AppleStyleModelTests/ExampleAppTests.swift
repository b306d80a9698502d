import FileWrapperDocument
import Testing
import TestSupport

/// checklist-example and album-example run as a user runs them: a child
/// process per session, whose top-level code drives the document on the
/// main actor.
@Suite(.startsProcesses) struct ExampleAppTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func run(_ program: String, _ arguments: String...) throws -> CommandResult {
        let result = try BuiltProgram.run(program, arguments, in: directory.url)
        #expect(result.exited, "\(program) died of signal \(result.status)")
        return result
    }

    @Test func checklistSessionsEditUndoRedoAndSave() throws {
        let first = try run("checklist-example", "Groceries.checklist", "add:Apples", "add:Bread", "add:Cheese", "toggle:2", "move:3:0", "delete:2")
        #expect(first.status == 0 && first.stderr == "")
        #expect(first.stdout == "1 [ ] Cheese\n2 [x] Bread\n")

        let file = directory.appending("Groceries.checklist")
        let saved = Disk.inode(file)
        let second = try run("checklist-example", "Groceries.checklist", "add:Dates", "toggle:1", "undo", "undo")
        #expect(second.status == 0 && second.stderr == "")
        #expect(second.stdout == "1 [ ] Cheese\n2 [x] Bread\n")
        #expect(Disk.inode(file) == saved, "undone back to the version opened, the list was not saved again")

        let third = try run("checklist-example", "Groceries.checklist", "undo")
        #expect(third.status == 2)
        #expect(third.stderr == "checklist-example: undo: there is nothing to undo\n", "a session opens with nothing to undo")

        let redone = try run("checklist-example", "Groceries.checklist", "add:Eggs", "undo", "redo")
        #expect(redone.stdout == "1 [ ] Cheese\n2 [x] Bread\n3 [ ] Eggs\n")
        #expect(Disk.inode(file) != saved)
        let reopened = try run("checklist-example", "Groceries.checklist")
        #expect(reopened.stdout == redone.stdout)

        let wrong = try run("checklist-example", "Groceries.checklist", "toggle:9")
        #expect(wrong.status == 2)
        #expect(wrong.stderr == "checklist-example: toggle:9: there is no item 9 (the list has 3)\n")
    }

    @Test func checklistRefusesAFileItCannotReadNamingIt() throws {
        try Disk.write("[1, 2", to: directory.appending("Broken.checklist"))
        let result = try run("checklist-example", "Broken.checklist", "add:x")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("checklist-example: \"\(directory.appending("Broken.checklist").path)\": cannot be opened as com.example.checklist"))
        #expect(try Data(contentsOf: directory.appending("Broken.checklist")) == Data("[1, 2".utf8), "the file is as it was")
    }

    @Test func albumSessionsWriteOnlyTheImagesThatChanged() throws {
        var random = SplitMix64(seed: 2024)
        for name in ["beach.jpg", "hills.jpg", "town.jpg"] {
            try Disk.write(Data(random.bytes(3000)), to: directory.appending(name))
        }
        let first = try run("album-example", "Trip.album", "add:beach.jpg", "add:hills.jpg", "add:town.jpg")
        #expect(first.status == 0 && first.stderr == "")
        #expect(first.stdout == "Trip: 3 images\n1 beach.jpg (3000 bytes)\n2 hills.jpg (3000 bytes)\n3 town.jpg (3000 bytes)\n")
        let images = directory.appending("Trip.album/Images")
        let beach = Disk.inode(images.appendingPathComponent("beach.jpg"))
        let hills = Disk.inode(images.appendingPathComponent("hills.jpg"))

        try Disk.write(Data(random.bytes(1200)), to: directory.appending("hills.jpg"))
        let second = try run("album-example", "Trip.album", "add:hills.jpg", "remove:3")
        #expect(second.stdout == "Trip: 2 images\n1 beach.jpg (3000 bytes)\n2 hills.jpg (1200 bytes)\n")
        #expect(try Disk.names(in: images) == ["beach.jpg", "hills.jpg"])
        #expect(Disk.inode(images.appendingPathComponent("beach.jpg")) == beach, "the unchanged image was written again")
        #expect(Disk.inode(images.appendingPathComponent("hills.jpg")) != hills)
        #expect(try Data(contentsOf: images.appendingPathComponent("hills.jpg")) == Data(contentsOf: directory.appending("hills.jpg")))
    }
}
