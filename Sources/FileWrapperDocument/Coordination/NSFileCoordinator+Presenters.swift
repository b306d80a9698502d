import FileWrapperKit
import Foundation

extension NSFileCoordinator {
    /// Registers `filePresenter`, as Foundation's coordinator does: from
    /// now until ``removeFilePresenter(_:)``, changes others make to its
    /// `presentedItemURL` (the URL it has when registered) are told to it
    /// on its `presentedItemOperationQueue`, watched as a
    /// ``DocumentController`` watches its file (``DocumentDiskChange``):
    /// a replacement or a change calls `presentedItemDidChange()`, a move
    /// within the folder `presentedItemDidMove(to:)`, a deletion or a move
    /// out of the folder `accommodatePresentedItemDeletion(completionHandler:)`
    /// (after the fact: nothing is asked before). Writes made through a
    /// coordinator created with this presenter are not told to it.
    /// The coordinator keeps the presenter until it is removed.
    ///
    /// - Parameter filePresenter: The presenter to tell, watched at its
    ///   `presentedItemURL`; one without a URL is not registered.
    public class func addFilePresenter(_ filePresenter: any NSFilePresenter) {
        guard let url = filePresenter.presentedItemURL?.standardizedFileURL else { return }
        let presenter = Presented(presenter: filePresenter)
        let watcher = DiskWatcher()
        watcher.known.withLock { $0 = DiskStamp(of: url) }
        watcher.watch(url)
        let changes = watcher.changes()
        let previous = presenters.withLock { $0.updateValue((url, watcher), forKey: ObjectIdentifier(filePresenter)) }
        if let previous { Task { await previous.watcher.close() } }
        Task {
            for await change in changes { presenter.tell(change) }
        }
    }

    /// Stops telling `filePresenter` of changes, as Foundation's coordinator does.
    ///
    /// - Parameter filePresenter: A presenter given to ``addFilePresenter(_:)``;
    ///   any other is ignored.
    public class func removeFilePresenter(_ filePresenter: any NSFilePresenter) {
        guard let removed = presenters.withLock({ $0.removeValue(forKey: ObjectIdentifier(filePresenter)) }) else { return }
        Task { await removed.watcher.close() }
    }

    /// The registered presenters' items and watchers, by presenter.
    private static let presenters = Locked<[ObjectIdentifier: (url: URL, watcher: DiskWatcher)]>([:])

    /// After a coordinated write of `url`, still holding its lock: what is
    /// there now is this coordinator's presenter's own version, no event for it.
    func recordOwnWrite(of url: URL) {
        guard let filePresenter,
              let registered = Self.presenters.withLock({ $0[ObjectIdentifier(filePresenter)] }),
              registered.url.path == url.path
        else { return }
        let stamp = DiskStamp(of: url)
        registered.watcher.known.withLock { $0 = stamp }
    }
}

/// A registered presenter, called on its own operation queue only, as
/// Foundation calls it: `@unchecked Sendable` for that handover.
private struct Presented: @unchecked Sendable {
    let presenter: any NSFilePresenter

    func tell(_ change: DocumentDiskChange) {
        presenter.presentedItemOperationQueue.addOperation {
            switch change {
            case .replaced, .changed: presenter.presentedItemDidChange()
            case .moved(let url?): presenter.presentedItemDidMove(to: url)
            case .moved(nil), .deleted: presenter.accommodatePresentedItemDeletion { _ in }
            }
        }
    }
}
