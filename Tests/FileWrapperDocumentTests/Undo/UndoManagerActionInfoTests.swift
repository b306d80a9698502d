import FileWrapperDocument
import Foundation
import Testing

/// Localizes the menu titles, as Apple's documentation says a subclass does.
private final class FrenchUndoManager: UndoManager {
    override func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Annuler" : "Annuler \(actionName)"
    }

    override func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Rétablir" : "Rétablir \(actionName)"
    }
}

/// The members of Apple's UndoManager beyond grouping and registering:
/// menu titles, counts, discardable actions, values kept with an action.
@Suite @MainActor struct UndoManagerActionInfoTests {
    @Test func menuTitlesFollowTheActionNames() {
        let undoManager = UndoManager()
        let counter = Counter()
        #expect(undoManager.undoMenuItemTitle == "Undo" && undoManager.redoMenuItemTitle == "Redo")
        counter.add(1, undoManager: undoManager)
        undoManager.setActionName("Add One")
        #expect(undoManager.undoMenuItemTitle == "Undo Add One")
        #expect(undoManager.redoMenuItemTitle == "Redo")
        undoManager.undo()
        #expect(undoManager.undoMenuItemTitle == "Undo")
        #expect(undoManager.redoMenuItemTitle == "Redo Add One")
        #expect(undoManager.undoMenuTitle(forUndoActionName: "Paste") == "Undo Paste")
        #expect(undoManager.redoMenuTitle(forUndoActionName: "") == "Redo")
        undoManager.removeAllActions()
    }

    @Test func aSubclassLocalizesTheTitles() {
        let undoManager = FrenchUndoManager()
        let counter = Counter()
        counter.add(1, undoManager: undoManager)
        undoManager.setActionName("Ajout")
        #expect(undoManager.undoMenuItemTitle == "Annuler Ajout")
        undoManager.undo()
        #expect(undoManager.redoMenuItemTitle == "Rétablir Ajout")
        #expect(undoManager.undoMenuItemTitle == "Annuler")
        undoManager.removeAllActions()
    }

    @Test func countsAreTheGroupsThatCanBeUndoneAndRedone() {
        let undoManager = UndoManager()
        let counter = Counter()
        for amount in 1...3 { counter.add(amount, undoManager: undoManager) }
        #expect(undoManager.undoCount == 3 && undoManager.redoCount == 0)
        undoManager.undo()
        undoManager.undoNestedGroup()
        #expect(counter.value == 1)
        #expect(undoManager.undoCount == 1 && undoManager.redoCount == 2)
        undoManager.removeAllActions()
        #expect(undoManager.undoCount == 0 && undoManager.redoCount == 0)
    }

    @Test func discardableGroupsAreMarkedAndSaySoWhenTheyClose() {
        let undoManager = UndoManager()
        let counter = Counter()
        let received = Locked<[Bool]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: UndoManager.didCloseUndoGroupNotification, object: undoManager, queue: nil
        ) { notification in
            let discardable = (notification.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? NSNumber)?.boolValue ?? false
            received.withLock { $0.append(discardable) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        undoManager.beginUndoGrouping()
        counter.add(1, undoManager: undoManager)
        undoManager.setActionIsDiscardable(true)
        undoManager.endUndoGrouping()
        counter.add(2, undoManager: undoManager)
        #expect(received.withLock { $0 } == [true, false])
        #expect(!undoManager.undoActionIsDiscardable)
        undoManager.undo()
        #expect(undoManager.undoActionIsDiscardable && !undoManager.redoActionIsDiscardable)
        undoManager.undo()
        #expect(undoManager.redoActionIsDiscardable, "the redo of a discardable change is discardable")
        undoManager.removeAllActions()
    }

    @Test func valuesKeptWithAnActionFollowItThroughUndoAndRedo() {
        let undoManager = UndoManager()
        let counter = Counter()
        let selection = UndoManager.UserInfoKey("selection")
        counter.add(1, undoManager: undoManager)
        undoManager.setActionUserInfoValue(NSRange(location: 3, length: 2), forKey: selection)
        #expect(undoManager.undoActionUserInfoValue(forKey: selection) as? NSRange == NSRange(location: 3, length: 2))
        #expect(undoManager.undoActionUserInfoValue(forKey: UndoManager.UserInfoKey(rawValue: "other")) == nil)
        undoManager.undo()
        #expect(undoManager.undoActionUserInfoValue(forKey: selection) == nil)
        #expect(undoManager.redoActionUserInfoValue(forKey: selection) as? NSRange == NSRange(location: 3, length: 2))
        undoManager.redo()
        undoManager.setActionUserInfoValue(nil, forKey: selection)
        #expect(undoManager.undoActionUserInfoValue(forKey: selection) == nil)
        #expect(undoManager.runLoopModes == [.default])
        undoManager.removeAllActions()
    }
}
