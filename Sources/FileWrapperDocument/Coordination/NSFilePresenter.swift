import Foundation

/// Foundation's file presenter: an object that shows an item and is told
/// when others change it, once registered with
/// `NSFileCoordinator.addFilePresenter(_:)`, which says which methods are
/// called (`presentedItemDidChange()`, `presentedItemDidMove(to:)`,
/// `accommodatePresentedItemDeletion(completionHandler:)`; the others are
/// declared so that code written for Apple's systems compiles, and never
/// called). Every method Foundation makes optional has a default that
/// does nothing.
public protocol NSFilePresenter: NSObjectProtocol {
    /// The item presented.
    var presentedItemURL: URL? { get }
    /// Where the presenter's methods are called.
    var presentedItemOperationQueue: OperationQueue { get }

    /// Another process changed the item's contents.
    func presentedItemDidChange()
    /// The item moved to `newURL`.
    func presentedItemDidMove(to newURL: URL)
    /// The item is about to be deleted: let it go, then call `completionHandler`.
    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// Save unsaved changes before another reads or writes the item.
    func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// An item inside the presented one (a file of a package) changed.
    func presentedSubitemDidChange(at url: URL)
}

extension NSFilePresenter {
    public func presentedItemDidChange() {}
    /// Does nothing, unless the presenter implements it.
    ///
    /// - Parameter newURL: Where the item is now.
    public func presentedItemDidMove(to newURL: URL) {}
    /// Calls `completionHandler` with no error, unless the presenter implements it.
    ///
    /// - Parameter completionHandler: Called once the item is let go.
    public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
    /// Calls `completionHandler` with no error, unless the presenter implements it.
    ///
    /// - Parameter completionHandler: Called once the changes are saved.
    public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
    /// Does nothing, unless the presenter implements it.
    ///
    /// - Parameter url: The item inside the presented one that changed.
    public func presentedSubitemDidChange(at url: URL) {}
}
