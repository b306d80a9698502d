/// A document stored as a value: SwiftUI's `FileDocument`, with the same
/// requirements, so that a document type written for SwiftUI compiles here
/// unchanged.
///
/// ``DocumentController`` reads it with ``init(configuration:)`` and saves
/// it with ``fileWrapper(configuration:)``, off the caller's thread; a
/// package document can return the children of
/// `configuration.existingFile` that did not change, and only the changed
/// files are written.
@preconcurrency
public protocol FileDocument: Sendable {
    /// The types the document reads.
    static var readableContentTypes: [UTType] { get }
    /// The types the document writes; by default the types it reads.
    static var writableContentTypes: [UTType] { get }

    /// Reads the document from `configuration.file`, of type `configuration.contentType`.
    init(configuration: ReadConfiguration) throws

    /// The document as a file wrapper of type `configuration.contentType`:
    /// a directory for a package type or a zip container, a regular file otherwise.
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper

    typealias ReadConfiguration = FileDocumentReadConfiguration
    typealias WriteConfiguration = FileDocumentWriteConfiguration
}

extension FileDocument {
    public static var writableContentTypes: [UTType] { readableContentTypes }
}
