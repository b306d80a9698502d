import Foundation

/// A document's life without a user interface: what `DocumentGroup` and
/// `UIDocument` give an app, for a server or a command-line tool.
///
/// One controller holds one document, a ``FileDocument`` value or a
/// ``ReferenceFileDocument`` object, and its file:
/// - new (`init(newDocument:contentType:)`, no file yet) or opened
///   (`init(contentsOf:contentType:isEditable:)`): a directory bundle, a
///   zip container or a flat file, chosen by the content type;
/// - edited through ``update(_:)``, which counts changes (and throws once
///   the document is closed), or, for a
///   reference document, on the main actor by methods that register undo
///   with ``undoManager``, as a SwiftUI view edits it;
/// - saved in place, incrementally (``save(force:)``), saved as another file
///   (``save(to:contentType:)``, the document moves), copied
///   (``saveCopy(to:contentType:)``, it stays), autosaved when changed,
///   reverted, renamed on disk and closed.
///
/// Every save is atomic: the new version is built beside the file and
/// swapped in, so a failure or a crash at any instant leaves the previous
/// version whole. A save over a file that another program changed since it
/// was read or last saved is refused unless forced.
///
/// Saves and reads of one document take turns with every other
/// controller's and every other process's, and with `NSFileCoordinator`'s
/// coordinated access (`DocumentLock`, docs/coordination.md): a save
/// replaces the version it was based on or is refused, never lands over
/// another's unseen, and an open or revert reads one whole version.
///
/// The controller is an actor: edits and the capture of what a save writes
/// (a value's copy, a reference document's snapshot) take turns on it, so a
/// snapshot never sees half an edit; reading, serializing and writing run
/// off it, while edits go on. Operations that use the file (open, save,
/// revert, rename, close) run one after another, in the order called.
public actor DocumentController<Document: Sendable> {
    /// The document as last edited (or undone or redone).
    public var document: Document { content.withLock { $0 } }
    /// The document's file; `nil` until a new document is first saved.
    /// Follows save as and rename.
    public internal(set) var fileURL: URL?
    /// The type the document is saved as.
    public internal(set) var contentType: UTType
    /// `false` for a document opened for viewing only: it cannot be saved
    /// in place, saved as or renamed (a copy can be saved).
    public nonisolated let isEditable: Bool
    /// How many changes were made since the controller was created (edits,
    /// and undoable changes, undos and redos through ``undoManager``);
    /// never decreases.
    public var changeCount: Int { changes.count }
    /// Whether ``close(saving:)`` was called.
    public internal(set) var isClosed = false
    /// Which versions saves keep (``setVersionPolicy(_:)``); off until set.
    public internal(set) var versionPolicy = DocumentVersionPolicy.off

    /// Whether the document differs from the version last read or saved:
    /// edited since, or changed through ``undoManager`` and not undone
    /// back to that version.
    public var hasUnsavedChanges: Bool { changes.hasUnsavedChanges }

    /// The document's undo manager, as `DocumentGroup` gives each document
    /// one: an action registered with it is a change (autosave saves it),
    /// and undoing or redoing it changes the document back or forward,
    /// to the saved version if that is where it leads. A value document's
    /// edits through ``update(_:)`` register their undo with it.
    ///
    /// It keeps the last 100 changes (its `levelsOfUndo` can be changed),
    /// where Foundation's default keeps all: a server may edit a document
    /// without end and never undo.
    public nonisolated let undoManager: UndoManager

    /// How many changes a new controller's ``undoManager`` keeps.
    static var levelsOfUndo: Int { 100 }

    let serialization: DocumentSerialization<Document>
    /// The changes counted, shared with ``undoManager``.
    let changes: DocumentChanges
    /// The document, behind a lock: the undo of a value document's edit
    /// puts the value back from the main actor.
    let content: Locked<Document>
    /// What the document was last read from or written as.
    var revision: DiskRevision? {
        didSet { watcher.known.withLock { $0 = revision?.stamp } }
    }
    /// Watches the file for changes others make (``diskChanges()``); knows
    /// the stamp of ``revision``, to tell the controller's own saves.
    let watcher = DiskWatcher()
    /// Whether an operation that uses the file is running, and who waits for it.
    var isBusy = false
    var waiting: [CheckedContinuation<Void, Never>] = []

    init(document: Document, contentType: UTType, fileURL: URL?, revision: DiskRevision?, isEditable: Bool,
         serialization: DocumentSerialization<Document>) {
        content = Locked(document)
        self.contentType = contentType
        self.fileURL = fileURL
        self.revision = revision
        self.isEditable = isEditable
        self.serialization = serialization
        changes = DocumentChanges()
        undoManager = UndoManager(changes: changes, levelsOfUndo: Self.levelsOfUndo)
        watcher.known.withLock { $0 = revision?.stamp }
        watcher.watch(fileURL)
    }

    /// Applies `edit` to the document and counts one change. A value
    /// document is edited on a copy, so an edit that throws changes nothing,
    /// and its undo (putting the value before back) is registered with
    /// ``undoManager``, as SwiftUI registers it for a `FileDocument`.
    /// A closed document is not edited: the call throws
    /// ``DocumentError/Code/closed`` before `edit` runs.
    ///
    /// `edit` is `sending`: main-actor code (an app's, or top-level code)
    /// passes a closure such as `{ $0.title = "Trip" }` as it is; one that
    /// captures main-actor state copies what it needs into a local first.
    ///
    /// - Parameter edit: Changes the document it is given.
    /// - Returns: What `edit` returns.
    /// - Throws: ``DocumentError`` `closed` once the document is closed;
    ///   else what `edit` throws (a value document is then unchanged).
    @discardableResult
    public func update<Result: Sendable>(_ edit: sending (inout Document) throws -> Result) throws -> Result {
        try checkOpen()
        let original = document
        var edited = original
        let result = try edit(&edited)
        content.withLock { $0 = edited }
        if serialization.undoesEdits {
            changes.done()
            registerUndo(ofEditFrom: original, to: edited)
        } else {
            changes.edited()
        }
        return result
    }
}

extension DocumentController where Document: FileDocument {
    /// A new value document with no file yet, to be saved as `contentType`
    /// (by default the first type the document writes).
    ///
    /// - Parameters:
    ///   - newDocument: The document.
    ///   - contentType: The type to save it as; nil for the first it writes.
    public init(newDocument: Document, contentType: UTType? = nil) {
        self.init(newDocument: newDocument, contentType: contentType, serialization: .fileDocument)
    }

    /// Opens the value document at `url`, as `contentType` or as the type
    /// its filename extension names among the types the document reads.
    ///
    /// - Parameters:
    ///   - url: The document's file.
    ///   - contentType: The type to open it as; nil to tell it by extension.
    ///   - isEditable: `false` to open it for viewing only.
    /// - Throws: ``DocumentError``: `unreadableContentType`, `wrongKind`,
    ///   `unreadable`, or `documentRefused` when the document's reader throws.
    public init(contentsOf url: URL, contentType: UTType? = nil, isEditable: Bool = true) async throws {
        try await self.init(contentsOf: url, contentType: contentType, isEditable: isEditable, serialization: .fileDocument)
    }
}

extension DocumentController where Document: ReferenceFileDocument {
    /// A new reference document with no file yet, to be saved as
    /// `contentType` (by default the first type the document writes).
    ///
    /// - Parameters:
    ///   - newDocument: The document.
    ///   - contentType: The type to save it as; nil for the first it writes.
    public init(newDocument: Document, contentType: UTType? = nil) {
        self.init(newDocument: newDocument, contentType: contentType, serialization: .referenceDocument)
    }

    /// Opens the reference document at `url`, as `contentType` or as the
    /// type its filename extension names among the types the document reads.
    ///
    /// - Parameters:
    ///   - url: The document's file.
    ///   - contentType: The type to open it as; nil to tell it by extension.
    ///   - isEditable: `false` to open it for viewing only.
    /// - Throws: ``DocumentError``: `unreadableContentType`, `wrongKind`,
    ///   `unreadable`, or `documentRefused` when the document's reader throws.
    public init(contentsOf url: URL, contentType: UTType? = nil, isEditable: Bool = true) async throws {
        try await self.init(contentsOf: url, contentType: contentType, isEditable: isEditable, serialization: .referenceDocument)
    }
}

extension DocumentController {
    init(newDocument: Document, contentType: UTType?, serialization: DocumentSerialization<Document>) {
        guard let type = contentType ?? serialization.writableContentTypes.first else {
            preconditionFailure("\(Document.self) writes no content type")
        }
        self.init(document: newDocument, contentType: type, fileURL: nil, revision: nil, isEditable: true, serialization: serialization)
    }

    init(contentsOf url: URL, contentType: UTType?, isEditable: Bool, serialization: DocumentSerialization<Document>) async throws {
        let url = url.standardizedFileURL
        let type = try serialization.contentType(of: url, given: contentType)
        let opened = try await DocumentDisk.open(url, as: type, with: serialization)
        self.init(document: opened.document, contentType: type, fileURL: url, revision: opened.revision, isEditable: isEditable,
                  serialization: serialization)
    }
}
