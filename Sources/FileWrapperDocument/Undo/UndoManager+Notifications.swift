import Foundation

/// The notifications an ``UndoManager`` posts, with itself as the object,
/// under the names Foundation gives them.
extension UndoManager {
    /// Posted when a group is begun or ended, and before an undo or redo.
    public nonisolated static let checkpointNotification = Notification.Name("NSUndoManagerCheckpointNotification")
    /// Posted after a group is begun.
    public nonisolated static let didOpenUndoGroupNotification = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before a group is ended.
    public nonisolated static let willCloseUndoGroupNotification = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after a group is ended.
    public nonisolated static let didCloseUndoGroupNotification = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
    /// Posted before an undo runs its actions.
    public nonisolated static let willUndoChangeNotification = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted after an undo ran its actions.
    public nonisolated static let didUndoChangeNotification = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted before a redo runs its actions.
    public nonisolated static let willRedoChangeNotification = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted after a redo ran its actions.
    public nonisolated static let didRedoChangeNotification = Notification.Name("NSUndoManagerDidRedoChangeNotification")
}
