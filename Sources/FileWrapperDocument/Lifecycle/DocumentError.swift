import Foundation

/// Why a document could not be opened, saved, renamed or closed: which
/// file, what is wrong, and the error underneath, in one sentence such as
/// `"/docs/Notes.notes": changed on disk since it was opened or last saved; ...`.
public struct DocumentError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public enum Code: Sendable, Hashable {
        /// The file's type is not one the document type reads.
        case unreadableContentType
        /// The type asked for is not one the document type writes.
        case unwritableContentType
        /// A directory where the type is stored as a file, or the reverse;
        /// or a document's file wrapper of the wrong kind for its type.
        case wrongKind
        /// The file could not be read: missing, unreadable, or a damaged container.
        case unreadable
        /// The document's `init(configuration:)` refused what it read.
        case documentRefused
        /// The document's snapshot or file wrapper could not be made.
        case serializationFailed
        /// Writing failed; the previous version on disk is whole.
        case writeFailed
        /// Another program changed the file since it was read or last saved.
        case changedOnDisk
        /// The document was opened for viewing only.
        case notEditable
        /// A new document has no file yet.
        case noFileURL
        /// The document was closed.
        case closed
        /// A rename was asked with a name that is not a file name.
        case invalidName
    }

    public var code: Code
    /// The document's file, or "untitled" for a new one.
    public var path: String
    /// What is wrong, without the path.
    public var message: String
    /// The error underneath, if any.
    public var underlyingError: (any Error)?

    public init(_ code: Code, path: String, message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.underlyingError = underlyingError
    }

    init(_ code: Code, url: URL?, _ message: String, underlying: (any Error)? = nil) {
        self.init(code, path: url?.path ?? "untitled", message: message, underlyingError: underlying)
    }

    public var description: String {
        let cause = underlyingError.map { ": " + Self.describe($0) } ?? ""
        return "\"\(path)\": \(message)\(cause)"
    }

    public var errorDescription: String? { description }

    /// A sentence for `error`: its own description for this library's
    /// errors (a `FileWrapper` method's `CocoaError` is one: it carries a
    /// `FileWrapperError`), the code and reason for Foundation's.
    static func describe(_ error: any Error) -> String {
        if let detail = (error as? CocoaError)?.fileWrapperError {
            return detail.description
        }
        if let error = error as? CocoaError {
            let reason = [NSLocalizedFailureReasonErrorKey, NSDebugDescriptionErrorKey, NSLocalizedDescriptionKey]
                .lazy.compactMap { error.userInfo[$0] as? String }.first
            let name = cocoaNames[error.code] ?? "CocoaError code \(error.code.rawValue)"
            return reason.map { "\($0) (\(name))" } ?? name
        }
        if let error = error as? any LocalizedError, let description = error.errorDescription {
            return description
        }
        return String(describing: error)
    }

    private static let cocoaNames: [CocoaError.Code: String] = [
        .fileReadCorruptFile: "the contents are corrupt or not in the document's format (CocoaError.fileReadCorruptFile)",
        .fileReadUnknown: "CocoaError.fileReadUnknown",
        .fileReadNoSuchFile: "a file is missing (CocoaError.fileReadNoSuchFile)",
        .fileReadInapplicableStringEncoding: "the text is not in the expected encoding (CocoaError.fileReadInapplicableStringEncoding)",
        .fileWriteUnknown: "CocoaError.fileWriteUnknown",
        .fileWriteInapplicableStringEncoding: "the text cannot be written in the expected encoding (CocoaError.fileWriteInapplicableStringEncoding)",
        .coderReadCorrupt: "the data is corrupt (CocoaError.coderReadCorrupt)",
        .coderValueNotFound: "a value is missing (CocoaError.coderValueNotFound)",
    ]
}
