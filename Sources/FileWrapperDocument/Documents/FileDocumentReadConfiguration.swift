/// What a document reads: the file and its type, as SwiftUI passes them to
/// `init(configuration:)`.
///
/// Not `Sendable`, like SwiftUI's: it holds a `FileWrapper`, a mutable
/// class. It is made, used and dropped within one read.
public struct FileDocumentReadConfiguration {
    /// The type of the file, one that the document reads.
    public let contentType: UTType
    /// The file: a regular file for a flat document, a directory for a
    /// package or a zip container (whose children are its entries).
    public let file: FileWrapper

    /// A configuration for reading `file` as `contentType`, for tests and
    /// tools that drive a document directly.
    ///
    /// - Parameters:
    ///   - contentType: The type to read `file` as.
    ///   - file: The file, package or container.
    public init(contentType: UTType, file: FileWrapper) {
        self.contentType = contentType
        self.file = file
    }
}

@available(*, unavailable)
extension FileDocumentReadConfiguration: Sendable {}
