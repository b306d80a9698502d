import FileWrapperKit

/// What a document was last read from or written as: the file wrapper,
/// handed to the next save as `existingFile`, and its ``DiskStamp``.
///
/// `@unchecked Sendable` because a ``FileWrapper`` is a mutable class: a
/// controller hands its revision to one operation at a time (its
/// operations run one after another, see `exclusively`) and does not touch
/// it meanwhile, so the wrapper is never used from two tasks at once.
struct DiskRevision: @unchecked Sendable {
    let file: FileWrapper
    let stamp: DiskStamp
}

/// One save's serialization, made on the controller while edits wait and
/// run once, off it: a value document's copy or a reference document's
/// snapshot, bound to the document's `fileWrapper` method.
///
/// `@unchecked Sendable` because SwiftUI does not require a `Snapshot` to
/// be `Sendable`: the snapshot is made for this save, handed over once,
/// and used by it alone.
struct PendingSave: @unchecked Sendable {
    let makeFileWrapper: (FileDocumentWriteConfiguration) throws -> FileWrapper
}
