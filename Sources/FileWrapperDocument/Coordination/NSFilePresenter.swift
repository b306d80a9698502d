import Foundation

/// Foundation's file presenter, declared so that code written for Apple's
/// systems compiles: an object that shows an item and would be told when
/// others change it. Nothing calls these methods yet; the events of
/// changes made by others (inotify) come with issue 37, item 2. Every
/// method Foundation makes optional has a default that does nothing.
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
    public func presentedItemDidMove(to newURL: URL) {}
    public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
    public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
    public func presentedSubitemDidChange(at url: URL) {}
}
