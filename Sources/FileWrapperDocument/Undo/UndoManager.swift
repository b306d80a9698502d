import Foundation

/// Records edits so that they can be undone and redone: Foundation's
/// `UndoManager`, which Linux's Foundation lacks, with its names,
/// signatures and documented behaviour, so that a document model written
/// for SwiftUI (`undoManager?.registerUndo(withTarget: self) { ... }`)
/// compiles and behaves here.
///
/// Main-actor isolated, as Apple's is, and `@preconcurrency`, as its
/// methods are: Swift 5 code that calls it from a method with no isolation
/// (as Apple's samples do) compiles, as on Apple's systems. It can be
/// created anywhere.
///
/// Undo actions are kept in groups; ``undo()`` reverts the last group
/// whole, in the reverse order of its actions. Without a user interface
/// there is no event loop to group by, so ``groupsByEvent`` is `false` by
/// default: an action registered outside ``beginUndoGrouping()`` and
/// ``endUndoGrouping()`` is a group of its own (Apple's requires an open
/// group then). Set ``groupsByEvent`` to group the actions registered until the
/// main queue next runs, as an app's run loop does.
///
/// The target of an action is held weakly (Apple's holds it unowned): an
/// action whose target is gone is skipped instead of crashing.
///
/// `prepare(withInvocationTarget:)` and `registerUndo(withTarget:selector:object:)`
/// are not here: both record an Objective-C message for later, and Swift
/// on Linux has neither selectors nor message forwarding.
/// ``registerUndo(withTarget:handler:)`` does their job.
@preconcurrency @MainActor
open class UndoManager {
    /// One registered action: whom it concerns and what reverts it.
    struct Action {
        let target: ObjectIdentifier
        let perform: @MainActor () -> Void
    }

    /// What one ``undo()`` or ``redo()`` reverts, with its name, whether
    /// it may be discarded, and what the program keeps with it.
    struct Group {
        var actions: [Action] = []
        var name = ""
        var isDiscardable = false
        var userInfo: [UserInfoKey: Any] = [:]

        /// An empty group that reverts `group` and keeps what it was told.
        init(reverting group: Group) {
            name = group.name
            isDiscardable = group.isDiscardable
            userInfo = group.userInfo
        }

        init(actions: [Action] = []) {
            self.actions = actions
        }
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The groups begun and not yet ended, outermost first.
    private var openGroups: [Group] = []
    /// The group that collects what an undo or redo registers.
    private var reverting: Group?
    /// Whether the outermost open group was begun by ``groupsByEvent``.
    private var eventGroupIsOpen = false
    /// How many such groups were begun: the close scheduled for one must
    /// not close a later one.
    private var eventGroupCount = 0
    private var disabledCount = 0

    /// Told of every change a top-level group, an undo or a redo makes, for
    /// the ``DocumentController`` that owns this manager.
    nonisolated let changes: DocumentChanges?

    /// An action registered off the main actor.
    struct ArrivingAction: Sendable {
        let target: ObjectIdentifier
        let perform: @MainActor @Sendable () -> Void
    }

    /// Actions the ``DocumentController`` registered for its edits, which
    /// run off the main actor; every call on the main actor takes them in
    /// first, each a group of its own, so that they keep their order with
    /// what is registered there. No more than ``levelsOfUndo`` are kept
    /// while they wait: a program that never undoes keeps no more.
    private nonisolated let arriving: Locked<(actions: [ArrivingAction], limit: Int)>

    /// An undo manager with no actions.
    public nonisolated init() {
        changes = nil
        arriving = Locked(([], 0))
    }

    /// A document's undo manager, which keeps `levelsOfUndo` groups.
    nonisolated init(changes: DocumentChanges, levelsOfUndo: Int) {
        self.changes = changes
        self.levelsOfUndo = levelsOfUndo
        arriving = Locked(([], levelsOfUndo))
    }

    /// Whether ``undo()`` is running its actions.
    public private(set) var isUndoing = false
    /// Whether ``redo()`` is running its actions.
    public private(set) var isRedoing = false

    /// Whether actions registered outside an explicit group are grouped
    /// until the main queue next runs. `false` by default here, where no
    /// event loop runs; Apple's default, in an app, is `true`.
    public var groupsByEvent = false

    /// The run loop modes of Apple's event grouping. Kept as set, and
    /// changes nothing here: ``groupsByEvent`` groups until the main queue
    /// next runs, whatever the mode.
    public var runLoopModes: [RunLoop.Mode] = [.default]

    /// The most top-level groups kept; `0`, the default, keeps all. The
    /// oldest are dropped beyond it, at once when it is lowered.
    public var levelsOfUndo = 0 {
        didSet {
            takeArrivingActions()
            arriving.withLock { $0.limit = levelsOfUndo }
            dropOldGroups()
        }
    }

    /// How many groups are open (begun and not ended).
    public var groupingLevel: Int { openGroups.count }

    /// Whether ``registerUndo(withTarget:handler:)`` records actions.
    public var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

    /// Whether there is something to undo: a closed group, or actions in the
    /// open group.
    public var canUndo: Bool {
        takeArrivingActions()
        return !undoStack.isEmpty || openGroups.contains { !$0.actions.isEmpty }
    }

    /// Whether there is something to redo.
    public var canRedo: Bool {
        takeArrivingActions()
        return !redoStack.isEmpty
    }

    /// The name of the group ``undo()`` would revert; empty if none was set.
    public var undoActionName: String { lastUndoGroup?.name ?? "" }

    /// The name of the group ``redo()`` would repeat; empty if none was set.
    public var redoActionName: String { lastRedoGroup?.name ?? "" }

    /// The group ``undo()`` would revert.
    var lastUndoGroup: Group? {
        takeArrivingActions()
        return undoStack.last
    }

    /// The group ``redo()`` would repeat.
    var lastRedoGroup: Group? {
        takeArrivingActions()
        return redoStack.last
    }

    /// How many groups ``undo()`` can revert, one after another.
    public var undoCount: Int {
        takeArrivingActions()
        return undoStack.count
    }

    /// How many groups ``redo()`` can repeat, one after another.
    public var redoCount: Int {
        takeArrivingActions()
        return redoStack.count
    }

    /// The Undo menu command's title: `"Undo"` and the action name, as
    /// ``undoMenuTitle(forUndoActionName:)`` makes it.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

    /// The Redo menu command's title: `"Redo"` and the action name, as
    /// ``redoMenuTitle(forUndoActionName:)`` makes it.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// The Undo menu title for `actionName`: `"Undo"`, then the name if
    /// there is one. In English; a subclass overrides it to localize, as on
    /// Apple's systems.
    ///
    /// - Parameter actionName: An action name, possibly empty.
    /// - Returns: The title.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// The Redo menu title for `actionName`: `"Redo"`, then the name if
    /// there is one. In English; a subclass overrides it to localize.
    ///
    /// - Parameter actionName: An action name, possibly empty.
    /// - Returns: The title.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    /// Registers `handler`, run with `target` to undo the change just made.
    /// While undoing, what the handler registers is the redo of that undo.
    /// A new action outside an undo or a redo clears what could be redone.
    ///
    /// - Parameters:
    ///   - target: The object the change was made to; held weakly.
    ///   - handler: Undoes the change, given `target`.
    public func registerUndo<TargetType: AnyObject>(withTarget target: TargetType,
                                                    handler: @escaping @MainActor (TargetType) -> Void) {
        takeArrivingActions()
        guard isUndoRegistrationEnabled else { return }
        let action = Action(target: ObjectIdentifier(target)) { [weak target] in
            if let target { handler(target) }
        }
        if reverting != nil {
            reverting?.actions.append(action)
            return
        }
        redoStack.removeAll()
        if openGroups.isEmpty {
            if groupsByEvent {
                beginEventGroup()
            } else {
                beginUndoGrouping()
                openGroups[openGroups.count - 1].actions.append(action)
                endUndoGrouping()
                return
            }
        }
        openGroups[openGroups.count - 1].actions.append(action)
    }

    /// Registers, from off the main actor, an action that is a group of
    /// its own and clears what could be redone, as a new change does.
    nonisolated func registerArrivingUndo(withTarget target: AnyObject & Sendable, handler: @escaping @MainActor @Sendable () -> Void) {
        arriving.withLock { arriving in
            arriving.actions.append(ArrivingAction(target: ObjectIdentifier(target), perform: handler))
            if arriving.limit > 0, arriving.actions.count > arriving.limit {
                arriving.actions.removeFirst(arriving.actions.count - arriving.limit)
            }
        }
    }

    /// Takes in the actions registered off the main actor.
    private func takeArrivingActions() {
        let actions = arriving.withLock { arriving in
            defer { arriving.actions.removeAll() }
            return arriving.actions
        }
        guard !actions.isEmpty else { return }
        redoStack.removeAll()
        undoStack += actions.map { Group(actions: [Action(target: $0.target, perform: $0.perform)]) }
        dropOldGroups()
    }

    /// Names the change being recorded ("Add Item"): while undoing or
    /// redoing, the group that reverts it; else the open group, or the last
    /// closed one.
    ///
    /// - Parameter actionName: The name, as a menu shows it after "Undo".
    public func setActionName(_ actionName: String) {
        withCurrentGroup { $0.name = actionName }
    }

    /// Changes the group being recorded, as ``setActionName(_:)`` names
    /// it: while undoing or redoing, the group that reverts; else the open
    /// group, or the last closed one.
    func withCurrentGroup(_ change: (inout Group) -> Void) {
        takeArrivingActions()
        if reverting != nil {
            reverting.map { var group = $0; change(&group); reverting = group }
        } else if !openGroups.isEmpty {
            change(&openGroups[0])
        } else if !undoStack.isEmpty {
            change(&undoStack[undoStack.count - 1])
        }
    }

    /// Begins a group: the actions registered until the matching
    /// ``endUndoGrouping()`` are undone together. Groups nest.
    public func beginUndoGrouping() {
        takeArrivingActions()
        post(Self.checkpointNotification)
        openGroups.append(Group())
        post(Self.didOpenUndoGroupNotification)
    }

    /// Ends the innermost open group. A top-level group with actions goes
    /// on the undo stack; a nested one becomes part of its parent. Ending
    /// a group that was not begun is a programmer error, as on Apple's
    /// systems.
    public func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "endUndoGrouping() called with no open undo group")
        post(Self.checkpointNotification)
        let closing = openGroups.count == 1 && openGroups[0].isDiscardable ? Self.discardableInfo : nil
        post(Self.willCloseUndoGroupNotification, userInfo: closing)
        let group = openGroups.removeLast()
        if openGroups.isEmpty {
            eventGroupIsOpen = false
            if !group.actions.isEmpty {
                undoStack.append(group)
                dropOldGroups()
                changes?.done()
            }
        } else {
            openGroups[openGroups.count - 1].actions += group.actions
            if openGroups[openGroups.count - 1].name.isEmpty {
                openGroups[openGroups.count - 1].name = group.name
            }
        }
        post(Self.didCloseUndoGroupNotification, userInfo: closing)
    }

    /// Reverts the last group, running its actions last first; what they
    /// register can be redone. A group opened by ``groupsByEvent`` is
    /// closed first; undoing with a group that the program opened still
    /// open is a programmer error, as on Apple's systems.
    public func undo() {
        takeArrivingActions()
        if eventGroupIsOpen, openGroups.count == 1 {
            endUndoGrouping()
        }
        precondition(openGroups.isEmpty, "undo() called with \(openGroups.count) undo group(s) still open; end them first")
        guard let group = undoStack.popLast() else { return }
        post(Self.checkpointNotification)
        post(Self.willUndoChangeNotification)
        isUndoing = true
        let redo = revert(group)
        isUndoing = false
        if !redo.actions.isEmpty {
            redoStack.append(redo)
        }
        changes?.undone()
        post(Self.didUndoChangeNotification)
    }

    /// Undoes the last group, as ``undo()``. Apple's undoes the last group
    /// nested in an open one; here a nested group becomes part of its
    /// parent when it ends, so calling this with a group the program
    /// opened still open is a programmer error.
    public func undoNestedGroup() {
        undo()
    }

    /// Repeats the last group undone, running what its undo registered;
    /// what that registers can be undone again. What could be redone
    /// further stays.
    public func redo() {
        takeArrivingActions()
        precondition(openGroups.isEmpty, "redo() called with \(openGroups.count) undo group(s) still open; end them first")
        guard let group = redoStack.popLast() else { return }
        post(Self.checkpointNotification)
        post(Self.willRedoChangeNotification)
        isRedoing = true
        let undo = revert(group)
        isRedoing = false
        if !undo.actions.isEmpty {
            undoStack.append(undo)
            dropOldGroups()
        }
        changes?.redone()
        post(Self.didRedoChangeNotification)
    }

    /// Stops recording actions until ``enableUndoRegistration()``; the
    /// two nest.
    public func disableUndoRegistration() {
        disabledCount += 1
    }

    /// Undoes one ``disableUndoRegistration()``.
    public func enableUndoRegistration() {
        precondition(disabledCount > 0, "enableUndoRegistration() called without disableUndoRegistration()")
        disabledCount -= 1
    }

    /// Forgets everything that could be undone or redone, and records again.
    public func removeAllActions() {
        takeArrivingActions()
        undoStack.removeAll()
        redoStack.removeAll()
        disabledCount = 0
    }

    /// Forgets the actions registered with `target`; a group left empty goes.
    ///
    /// - Parameter target: The object the actions were registered with.
    public func removeAllActions(withTarget target: Any) {
        takeArrivingActions()
        let identifier = ObjectIdentifier(target as AnyObject)
        func removing(_ groups: [Group]) -> [Group] {
            groups.compactMap { group in
                var group = group
                group.actions.removeAll { $0.target == identifier }
                return group.actions.isEmpty ? nil : group
            }
        }
        undoStack = removing(undoStack)
        redoStack = removing(redoStack)
        for index in openGroups.indices {
            openGroups[index].actions.removeAll { $0.target == identifier }
        }
    }

    /// Runs `group`'s actions last first, collecting what they register.
    private func revert(_ group: Group) -> Group {
        reverting = Group(reverting: group)
        for action in group.actions.reversed() {
            action.perform()
        }
        let collected = reverting ?? Group()
        reverting = nil
        return collected
    }

    /// Opens the group that ``groupsByEvent`` closes when the main queue next runs.
    private func beginEventGroup() {
        beginUndoGrouping()
        eventGroupIsOpen = true
        eventGroupCount += 1
        let group = eventGroupCount
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self, self.eventGroupIsOpen, self.eventGroupCount == group, self.openGroups.count == 1 else { return }
                self.endUndoGrouping()
            }
        }
    }

    /// Drops the oldest groups beyond ``levelsOfUndo``.
    private func dropOldGroups() {
        guard levelsOfUndo > 0, undoStack.count > levelsOfUndo else { return }
        undoStack.removeFirst(undoStack.count - levelsOfUndo)
    }

    private func post(_ name: Notification.Name, userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }

    /// The user info of a group that closes discardable.
    private static let discardableInfo: [AnyHashable: Any] = [NSUndoManagerGroupIsDiscardableKey: NSNumber(value: true)]
}
