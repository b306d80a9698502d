/// What a document writes to, as SwiftUI passes it to `fileWrapper(configuration:)`.
///
/// Not `Sendable`, like SwiftUI's: it holds a `FileWrapper`.
public struct FileDocumentWriteConfiguration {
    /// The type to write, one that the document writes.
    public let contentType: UTType
    /// What the document was last read from or written as; `nil` for a
    /// document never saved. A package document can return its unchanged
    /// children in the new wrapper, and the save links them instead of
    /// writing them again.
    public let existingFile: FileWrapper?

    /// A configuration for writing as `contentType`, for tests and tools
    /// that drive a document directly.
    ///
    /// - Parameters:
    ///   - contentType: The type to write.
    ///   - existingFile: What the document was last read from or written as;
    ///     nil for a document never saved.
    public init(contentType: UTType, existingFile: FileWrapper?) {
        self.contentType = contentType
        self.existingFile = existingFile
    }
}

@available(*, unavailable)
extension FileDocumentWriteConfiguration: Sendable {}
