import Foundation

/// A change someone else made to a document's file, as
/// ``DocumentController/diskChanges()`` reports it: another process's
/// save, a program that wrote the file, `mv`, `rm -r`. What
/// `NSFilePresenter` is told on Apple's systems.
///
/// One change is one event, however many files a package has: a save is
/// one swap of the whole tree. The controller's own saves are no event.
/// ``DocumentController/revert()`` (read what is there now) or
/// ``DocumentController/save(force:)`` (replace it) resolves a
/// replacement or a change; a save that is not forced is refused with
/// ``DocumentError/Code/changedOnDisk`` until then.
public enum DocumentDiskChange: Sendable, Hashable {
    /// Another version was put in the file's place (another process saved
    /// it, or a program replaced it as editors do).
    case replaced
    /// The file was written in place (a flat file; a file inside a package
    /// written in place is not seen).
    case changed
    /// The file was moved away: to the URL given when it stayed in its
    /// folder under another name, else nil. The controller's
    /// ``DocumentController/fileURL`` stays what it was.
    case moved(to: URL?)
    /// The file was deleted.
    case deleted
}

extension DocumentController {
    /// The changes others make to the document's file from now on, one
    /// element each, until the controller closes (the stream then ends).
    /// Follows the file through save as and rename; a new document's file
    /// is watched from its first save. Each call is a stream of its own.
    ///
    /// Watched with inotify on the file's folder from the first call on; a
    /// folder that cannot be watched gives no elements.
    ///
    /// - Returns: A stream of the changes, for one reader.
    public nonisolated func diskChanges() -> AsyncStream<DocumentDiskChange> {
        watcher.changes()
    }
}
