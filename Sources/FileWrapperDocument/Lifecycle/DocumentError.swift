import Foundation
import FileWrapperKit
import SystemPackage

/// Why a document could not be opened, saved, renamed or closed: which
/// file, what is wrong, and the error underneath, in one sentence such as
/// `"/docs/Notes.notes": changed on disk since it was opened or last saved; ...`.
public struct DocumentError: FileWrapperKitError, Sendable, LocalizedError {
    /// What kind of failure this is: a value that later versions may add
    /// to, so a `switch` over it needs a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name, as the static property that holds it.
        public let description: String

        private init(_ name: String) {
            description = name
        }

        /// The file's type is not one the document type reads.
        public static let unreadableContentType = Code("unreadableContentType")
        /// The type asked for is not one the document type writes.
        public static let unwritableContentType = Code("unwritableContentType")
        /// A directory where the type is stored as a file, or the reverse;
        /// or a document's file wrapper of the wrong kind for its type.
        public static let wrongKind = Code("wrongKind")
        /// The file could not be read: missing, unreadable, or a damaged container.
        public static let unreadable = Code("unreadable")
        /// The document's `init(configuration:)` refused what it read.
        public static let documentRefused = Code("documentRefused")
        /// The document's snapshot or file wrapper could not be made.
        public static let serializationFailed = Code("serializationFailed")
        /// Writing failed; the previous version on disk is whole.
        public static let writeFailed = Code("writeFailed")
        /// Another program changed the file since it was read or last saved.
        public static let changedOnDisk = Code("changedOnDisk")
        /// The document was opened for viewing only.
        public static let notEditable = Code("notEditable")
        /// A new document has no file yet.
        public static let noFileURL = Code("noFileURL")
        /// The document was closed.
        public static let closed = Code("closed")
        /// A rename was asked with a name that is not a file name.
        public static let invalidName = Code("invalidName")
    }

    public var code: Code
    /// The document's file, or "untitled" for a new one.
    public var path: String
    /// What is wrong, without the path.
    public var message: String
    /// The error underneath, if any.
    public var underlying: (any Error)?

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - path: The document's file, or "untitled" for a new one.
    ///   - message: What is wrong, without the path.
    ///   - underlying: The error underneath.
    public init(_ code: Code, path: String, message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.underlying = underlying
    }

    init(_ code: Code, url: URL?, _ message: String, underlying: (any Error)? = nil) {
        self.init(code, path: url?.path ?? "untitled", message: message, underlying: underlying)
    }

    /// The path, the message, then the causes under it (`ErrorChain`).
    public var description: String {
        ErrorChain.sentence("\"\(path)\": \(message)", cause: underlying)
    }

    public var errorDescription: String? { description }

    public var paths: [String] { [path] }
    /// The call that failed under this error, where one did.
    public var systemCall: String? { firstSystemCall()?.name }
    public var errno: Errno? { firstSystemCall()?.errno }
}
