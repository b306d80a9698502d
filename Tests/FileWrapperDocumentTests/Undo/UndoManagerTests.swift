import FileWrapperDocument
import Testing

/// A counter whose changes register their undo, as a document model does
/// (Apple's samples too): the handler captures the undo manager, so an
/// undo manager and the actions it keeps hold each other. A test that
/// leaves actions behind ends with `removeAllActions()`, as a closing
/// document clears its undo manager, so that nothing outlives it.
@MainActor
final class Counter {
    var value = 0
    var log: [String] = []

    func add(_ amount: Int, undoManager: UndoManager) {
        value += amount
        log.append("add \(amount)")
        undoManager.registerUndo(withTarget: self) { counter in
            counter.add(-amount, undoManager: undoManager)
        }
    }
}

/// UndoManager against Foundation's documented behaviour: groups, redo,
/// levels, names, targets, registration, notifications.
@Suite @MainActor struct UndoManagerTests {
    @Test func undoRevertsTheLastActionAndRedoRepeatsIt() {
        let undoManager = UndoManager()
        let counter = Counter()
        #expect(!undoManager.canUndo && !undoManager.canRedo)
        counter.add(5, undoManager: undoManager)
        counter.add(7, undoManager: undoManager)
        #expect(undoManager.canUndo && !undoManager.canRedo)

        undoManager.undo()
        #expect(counter.value == 5)
        #expect(undoManager.canUndo && undoManager.canRedo)
        undoManager.undo()
        #expect(counter.value == 0)
        #expect(!undoManager.canUndo && undoManager.canRedo)
        undoManager.undo()
        #expect(counter.value == 0, "undo with nothing to undo does nothing")

        undoManager.redo()
        #expect(counter.value == 5)
        undoManager.redo()
        #expect(counter.value == 12)
        #expect(!undoManager.canRedo)
        undoManager.undo()
        #expect(counter.value == 5, "a redone change can be undone again")
        undoManager.removeAllActions()
    }

    @Test func aGroupIsUndoneWholeLastActionFirst() {
        let undoManager = UndoManager()
        let counter = Counter()
        undoManager.beginUndoGrouping()
        counter.add(1, undoManager: undoManager)
        undoManager.beginUndoGrouping()
        #expect(undoManager.groupingLevel == 2)
        counter.add(10, undoManager: undoManager)
        undoManager.endUndoGrouping()
        counter.add(100, undoManager: undoManager)
        undoManager.endUndoGrouping()
        #expect(undoManager.groupingLevel == 0)
        counter.add(1000, undoManager: undoManager)

        undoManager.undo()
        #expect(counter.value == 111)
        counter.log.removeAll()
        undoManager.undo()
        #expect(counter.value == 0)
        #expect(counter.log == ["add -100", "add -10", "add -1"])
        #expect(!undoManager.canUndo)
        undoManager.redo()
        #expect(counter.value == 111, "the redo of a group is one group")
        undoManager.removeAllActions()
    }

    @Test func aNewActionClearsRedoButARedoDoesNot() {
        let undoManager = UndoManager()
        let counter = Counter()
        counter.add(1, undoManager: undoManager)
        counter.add(2, undoManager: undoManager)
        counter.add(4, undoManager: undoManager)
        undoManager.undo()
        undoManager.undo()
        #expect(counter.value == 1)
        undoManager.redo()
        #expect(undoManager.canRedo, "what a redo registers is undo, and leaves the rest to redo")
        undoManager.redo()
        #expect(counter.value == 7)
        undoManager.undo()
        counter.add(8, undoManager: undoManager)
        #expect(!undoManager.canRedo, "a new change clears redo")
        undoManager.redo()
        #expect(counter.value == 11)
        undoManager.removeAllActions()
    }

    @Test func levelsOfUndoDropsTheOldestGroups() {
        let undoManager = UndoManager()
        let counter = Counter()
        #expect(undoManager.levelsOfUndo == 0)
        undoManager.levelsOfUndo = 3
        for amount in [1, 2, 4, 8, 16] {
            counter.add(amount, undoManager: undoManager)
        }
        for _ in 0..<5 {
            undoManager.undo()
        }
        #expect(counter.value == 3, "only the last three could be undone")

        let lowered = UndoManager()
        let other = Counter()
        for amount in [1, 2, 4, 8] {
            other.add(amount, undoManager: lowered)
        }
        lowered.levelsOfUndo = 1
        lowered.undo()
        #expect(other.value == 7)
        #expect(!lowered.canUndo, "lowering the limit dropped the older groups at once")
        undoManager.removeAllActions()
        lowered.removeAllActions()
    }

    @Test func actionNamesFollowTheirGroupToRedoAndBack() {
        let undoManager = UndoManager()
        let counter = Counter()
        counter.add(1, undoManager: undoManager)
        undoManager.setActionName("Add One")
        undoManager.beginUndoGrouping()
        counter.add(2, undoManager: undoManager)
        undoManager.setActionName("Add Two")
        counter.add(3, undoManager: undoManager)
        undoManager.endUndoGrouping()
        #expect(undoManager.undoActionName == "Add Two")
        #expect(undoManager.redoActionName == "")

        undoManager.undo()
        #expect(undoManager.undoActionName == "Add One")
        #expect(undoManager.redoActionName == "Add Two")
        undoManager.redo()
        #expect(undoManager.undoActionName == "Add Two")
        #expect(undoManager.redoActionName == "")
        undoManager.removeAllActions()
    }

    @Test func removingATargetsActionsKeepsTheOthers() {
        let undoManager = UndoManager()
        let first = Counter()
        let second = Counter()
        first.add(1, undoManager: undoManager)
        second.add(10, undoManager: undoManager)
        undoManager.beginUndoGrouping()
        first.add(2, undoManager: undoManager)
        second.add(20, undoManager: undoManager)
        undoManager.endUndoGrouping()
        first.add(4, undoManager: undoManager)

        undoManager.removeAllActions(withTarget: first)
        undoManager.undo()
        #expect(first.value == 7 && second.value == 10, "the group kept the second target's action")
        undoManager.undo()
        #expect(second.value == 0)
        #expect(!undoManager.canUndo, "the groups left empty went")
        #expect(first.value == 7)

        first.add(1, undoManager: undoManager)
        undoManager.undo()
        undoManager.removeAllActions()
        #expect(!undoManager.canUndo && !undoManager.canRedo)
    }

    @Test func handlersSeeUndoingAndRedoingAndRegistrationCanBeSuspended() {
        let undoManager = UndoManager()
        let target = Counter()
        var seen: [(Bool, Bool)] = []
        func change() {
            seen.append((undoManager.isUndoing, undoManager.isRedoing))
            undoManager.registerUndo(withTarget: target) { _ in change() }
        }
        change()
        undoManager.undo()
        undoManager.redo()
        #expect(seen.map(\.0) == [false, true, false])
        #expect(seen.map(\.1) == [false, false, true])
        #expect(!undoManager.isUndoing && !undoManager.isRedoing)

        let counter = Counter()
        undoManager.removeAllActions()
        undoManager.disableUndoRegistration()
        undoManager.disableUndoRegistration()
        counter.add(1, undoManager: undoManager)
        undoManager.enableUndoRegistration()
        #expect(!undoManager.isUndoRegistrationEnabled)
        counter.add(2, undoManager: undoManager)
        undoManager.enableUndoRegistration()
        #expect(undoManager.isUndoRegistrationEnabled && !undoManager.canUndo)
        counter.add(4, undoManager: undoManager)
        undoManager.undo()
        #expect(counter.value == 3)
        undoManager.removeAllActions()
    }

    @Test func anActionWhoseTargetIsGoneIsSkipped() {
        let undoManager = UndoManager()
        var undone = 0
        do {
            let target = Counter()
            undoManager.registerUndo(withTarget: target) { _ in undone += 1 }
        }
        undoManager.undo()
        #expect(undone == 0)
        #expect(!undoManager.canUndo)
    }

    @Test func notificationsArePostedInFoundationsOrder() {
        let undoManager = UndoManager()
        let other = UndoManager()
        let counter = Counter()
        let names: [Notification.Name] = [
            UndoManager.checkpointNotification, UndoManager.didOpenUndoGroupNotification,
            UndoManager.willCloseUndoGroupNotification, UndoManager.didCloseUndoGroupNotification,
            UndoManager.willUndoChangeNotification, UndoManager.didUndoChangeNotification,
            UndoManager.willRedoChangeNotification, UndoManager.didRedoChangeNotification,
        ]
        let received = Locked<[String]>([])
        let observers = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: undoManager, queue: nil) { notification in
                received.withLock { $0.append(notification.name.rawValue.replacingOccurrences(of: "NSUndoManager", with: "")) }
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }

        counter.add(1, undoManager: other)
        undoManager.beginUndoGrouping()
        counter.add(1, undoManager: undoManager)
        undoManager.endUndoGrouping()
        undoManager.undo()
        undoManager.redo()
        #expect(received.withLock { $0 } == [
            "CheckpointNotification", "DidOpenUndoGroupNotification",
            "CheckpointNotification", "WillCloseUndoGroupNotification", "DidCloseUndoGroupNotification",
            "CheckpointNotification", "WillUndoChangeNotification", "DidUndoChangeNotification",
            "CheckpointNotification", "WillRedoChangeNotification", "DidRedoChangeNotification",
        ])
        undoManager.removeAllActions()
        other.removeAllActions()
    }

    @Test func groupsByEventGroupsUntilTheMainQueueRuns() async {
        let undoManager = UndoManager()
        #expect(!undoManager.groupsByEvent, "headless, every action is its own group by default")
        undoManager.groupsByEvent = true
        let counter = Counter()
        counter.add(1, undoManager: undoManager)
        counter.add(2, undoManager: undoManager)
        #expect(undoManager.groupingLevel == 1)
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }
        #expect(undoManager.groupingLevel == 0)
        counter.add(4, undoManager: undoManager)
        undoManager.undo()
        #expect(counter.value == 3, "undo closed the event's open group and undid it")
        undoManager.undo()
        #expect(counter.value == 0, "the two actions of the earlier event were one group")
        undoManager.removeAllActions()
    }
}
