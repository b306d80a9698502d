import Foundation

/// What a program tells the undo manager about the change being recorded,
/// besides its name: whether it may be discarded, and values of its own.
/// Each is set on the group ``UndoManager/setActionName(_:)`` would name,
/// and an undo or a redo keeps it for the group that reverts it.
extension UndoManager {
    /// A key of the values kept with an action
    /// (``setActionUserInfoValue(_:forKey:)``), as Apple's `UserInfoKey`.
    public struct UserInfoKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String

        /// A key named `rawValue`.
        ///
        /// - Parameter rawValue: The key's name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// A key named `rawValue`.
        ///
        /// - Parameter rawValue: The key's name.
        public init(_ rawValue: String) {
            self.rawValue = rawValue
        }
    }

    /// Marks the change being recorded as one that may be discarded when
    /// the document cannot be saved (a change of what is shown, not of the
    /// content). A top-level group that closes so marked is posted with
    /// `NSUndoManagerGroupIsDiscardableKey` in the user info of
    /// ``willCloseUndoGroupNotification`` and ``didCloseUndoGroupNotification``.
    ///
    /// - Parameter discardable: Whether it may be discarded.
    public func setActionIsDiscardable(_ discardable: Bool) {
        withCurrentGroup { $0.isDiscardable = discardable }
    }

    /// Whether the group ``undo()`` would revert may be discarded.
    public var undoActionIsDiscardable: Bool { lastUndoGroup?.isDiscardable ?? false }

    /// Whether the group ``redo()`` would repeat may be discarded.
    public var redoActionIsDiscardable: Bool { lastRedoGroup?.isDiscardable ?? false }

    /// Keeps `info` under `key` with the change being recorded; nil removes it.
    ///
    /// - Parameters:
    ///   - info: The value, or nil.
    ///   - key: Its key.
    public func setActionUserInfoValue(_ info: Any?, forKey key: UserInfoKey) {
        withCurrentGroup { $0.userInfo[key] = info }
    }

    /// The value kept under `key` with the group ``undo()`` would revert.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value; nil if none.
    public func undoActionUserInfoValue(forKey key: UserInfoKey) -> Any? {
        lastUndoGroup?.userInfo[key]
    }

    /// The value kept under `key` with the group ``redo()`` would repeat.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value; nil if none.
    public func redoActionUserInfoValue(forKey key: UserInfoKey) -> Any? {
        lastRedoGroup?.userInfo[key]
    }
}

/// The key, in the user info of a closing group's notifications, whose
/// value is `true` (an `NSNumber`) when the group may be discarded.
public let NSUndoManagerGroupIsDiscardableKey = "NSUndoManagerGroupIsDiscardableKey"

/// The order of Apple's run loop observer that closes event groups; here,
/// where the main queue closes them, only the value.
public let NSUndoCloseGroupingRunLoopOrdering = 350_000
