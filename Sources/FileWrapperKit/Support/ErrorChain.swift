import Foundation
import SystemPackage

/// The shape every error of FileWrapperKit's libraries has
/// (``FileWrapperError``, `ArchiveError`, ``ManifestError``,
/// `DocumentError`): beside its own code, what went wrong, the paths it is
/// about, the system call that failed and its `errno`, and the error it was
/// made from, which ``ErrorChain`` walks to print the whole story.
public protocol FileWrapperKitError: Error, CustomStringConvertible {
    /// What went wrong, in words, without the paths or the cause.
    var message: String { get }
    /// The files (and the entry within one) the failure is about, the
    /// outermost first.
    var paths: [String] { get }
    /// The system call that failed (`openat`), where one did; this error's
    /// own or its cause's.
    var systemCall: String? { get }
    /// The `errno` that call gave.
    var errno: Errno? { get }
    /// The error this one was made from, if any.
    var underlying: (any Error)? { get }
}

extension FileWrapperKitError {
    /// The system call of the first error along the chain, from this one,
    /// that names one: what a wrapping error reports as its own.
    package func firstSystemCall() -> (name: String, errno: Errno?)? {
        for error in ErrorChain(self) {
            if let failure = error as? FileWrapperError, let call = failure.systemCall { return (call, failure.errno) }
        }
        return nil
    }
}

/// An error and the causes under it, outermost first: each error's
/// ``FileWrapperKitError/underlying``, and the ``FileWrapperError`` inside a
/// `CocoaError` that a `FileWrapper` method threw. At most 16 deep.
public struct ErrorChain: Sequence {
    private let first: any Error

    /// The chain that starts at `error`.
    ///
    /// - Parameter error: The outermost error.
    public init(_ error: any Error) {
        first = error
    }

    public func makeIterator() -> AnyIterator<any Error> {
        var next: (any Error)? = first
        var depth = 0
        return AnyIterator {
            guard let error = next, depth < 16 else { return nil }
            depth += 1
            next = Self.cause(of: error)
            return error
        }
    }

    /// What `error` was made from.
    private static func cause(of error: any Error) -> (any Error)? {
        if let error = error as? any FileWrapperKitError { return error.underlying }
        if let error = error as? CocoaError { return error.fileWrapperError ?? error.underlying }
        return nil
    }

    /// The chain in one line: the outermost error's sentence (as
    /// `describe` gives it, its own ``describe(_:)`` where that gives nil),
    /// then each cause's that the line does not already say, after `: `.
    /// The one printer of errors: the command line's (which names its
    /// flags through `describe`) and `DocumentError`'s.
    ///
    /// - Parameter describe: A caller's sentence for an error; nil to use the
    ///   error's own.
    /// - Returns: The line, without a newline.
    public func description(describe: (any Error) -> String? = { _ in nil }) -> String {
        var text = ""
        for error in self {
            let sentence = describe(error) ?? Self.describe(error)
            if text.isEmpty {
                text = sentence
            } else if !text.contains(sentence) {
                text += ": " + sentence
            }
        }
        return text
    }

    /// `sentence` (an error's own), then what the error it was made from
    /// says, after `: `, unless `sentence` says it already: how each error
    /// of the package prints its cause, and so the chain under it.
    ///
    /// - Parameters:
    ///   - sentence: The error's own sentence.
    ///   - cause: The error it was made from; nil for none.
    /// - Returns: The sentence, with the cause's after it when it adds something.
    public static func sentence(_ sentence: String, cause: (any Error)?) -> String {
        guard let cause else { return sentence }
        let said = describe(cause)
        return sentence.contains(said) ? sentence : sentence + ": " + said
    }

    /// One error's sentence, its causes included: its description for this package's errors,
    /// the code and reason for Foundation's `CocoaError` (a `FileWrapper`
    /// method's says what its ``FileWrapperError`` says, which follows it in
    /// the chain), a `LocalizedError`'s description, or what it prints as.
    ///
    /// - Parameter error: Any error.
    /// - Returns: Its sentence.
    public static func describe(_ error: any Error) -> String {
        if let error = error as? any FileWrapperKitError {
            return error.description
        }
        if let error = error as? CocoaError {
            if let inner = error.fileWrapperError { return inner.description }
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

    /// What the codes a document's own reading and writing throw most often mean.
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
