/// A document stored as an object: SwiftUI's `ReferenceFileDocument`,
/// with the same requirements, so that a document class written for
/// SwiftUI compiles here unchanged. `ObservableObject` and `@Published`
/// are OpenCombine's, re-exported by this module: a `@Published`
/// property's `objectWillChange` fires when an edit sets it, on the thread
/// that edits (for ``DocumentController/update(_:)``, the controller's).
///
/// `Sendable`, as SwiftUI's is. A class whose state is `@Published`
/// properties is not checkably Sendable; in Swift 6 mode, as with SwiftUI,
/// the compiler warns unless the class says `@unchecked Sendable` (Swift
/// 5 mode does not warn), which is true when its state is touched only
/// through the controller or only on the main actor.
///
/// As under SwiftUI, an edit made on the main actor registers its undo
/// with ``DocumentController/undoManager``: that is what counts it as a
/// change, which autosave saves and undo takes back.
///
/// To save, ``DocumentController`` asks for a ``snapshot(contentType:)``
/// while edits through ``DocumentController/update(_:)`` wait, then
/// serializes that snapshot with ``fileWrapper(snapshot:configuration:)``
/// off the caller's thread while editing goes on. The snapshot is taken on
/// the controller, not on the main actor: a document edited on the main
/// actor is saved by main-actor code that awaits the save, with no other
/// main-actor edit running meanwhile.
@preconcurrency
public protocol ReferenceFileDocument: ObservableObject, Sendable {
    /// What a save writes: a copy of the document's content, taken at once.
    associatedtype Snapshot

    /// The types the document reads.
    static var readableContentTypes: [UTType] { get }
    /// The types the document writes; by default the types it reads.
    static var writableContentTypes: [UTType] { get }

    /// Reads the document from `configuration.file`, of type `configuration.contentType`.
    init(configuration: ReadConfiguration) throws

    /// A copy of the document's current content, for a save as `contentType`.
    func snapshot(contentType: UTType) throws -> Snapshot

    /// `snapshot` as a file wrapper of type `configuration.contentType`.
    func fileWrapper(snapshot: Snapshot, configuration: WriteConfiguration) throws -> FileWrapper

    typealias ReadConfiguration = FileDocumentReadConfiguration
    typealias WriteConfiguration = FileDocumentWriteConfiguration
}

extension ReferenceFileDocument {
    public static var writableContentTypes: [UTType] { readableContentTypes }
}
