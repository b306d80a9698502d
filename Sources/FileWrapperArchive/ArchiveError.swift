import FileWrapperKit
import Foundation
import SystemPackage

/// An error from writing or reading an archive: which archive, which entry,
/// and what went wrong, in one sentence such as
/// `Doc.zip: "../evil": the path leaves the archive's tree`.
public struct ArchiveError: FileWrapperKitError, Sendable, Hashable {
    /// What kind of failure this is: a value that later versions may add
    /// to, so a `switch` over it needs a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name, as the static property that holds it.
        public let description: String

        private init(_ name: String) {
            description = name
        }

        /// libarchive refused or failed; the message is libarchive's.
        public static let libarchive = Code("libarchive")
        /// The data is damaged or ends early.
        public static let corrupt = Code("corrupt")
        /// An entry's path is absolute, has `..`, or is otherwise unsafe.
        public static let unsafePath = Code("unsafePath")
        /// An entry of a kind that is not supported (device node, FIFO, socket).
        public static let unsupportedEntry = Code("unsupportedEntry")
        /// The archive is in a format the reader leaves out unless asked
        /// (``ArchiveReadFormats``), and the message names the option that
        /// adds it; or it cannot be read from where it comes (a 7z from a
        /// stream), or checked (a 7z header compressed with another method
        /// than LZMA), and the message says why.
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// No format the reader reads recognises the input: it is not an archive.
        public static let unrecognizedFormat = Code("unrecognizedFormat")
        /// Two entries at one path.
        public static let duplicateEntry = Code("duplicateEntry")
        /// An encrypted entry.
        public static let encrypted = Code("encrypted")
        /// A limit was reached; the message names it.
        public static let limitExceeded = Code("limitExceeded")
        /// Writing or reading the archive file, or writing what it holds, failed.
        public static let io = Code("io")
        /// The destination of an unpack exists, and replacing it was not asked for.
        public static let destinationExists = Code("destinationExists")
    }

    public var code: Code
    /// The archive, as the caller named it.
    public var archive: String
    /// The entry's path as stored in the archive, when the error is about one.
    public var entry: String?
    public var message: String
    /// For ``Code/limitExceeded``: the limit that was reached.
    public var limit: ArchiveReadLimits.Limit?
    /// For a refusal that an option of ``ArchiveUnpackOptions`` lifts (a
    /// symlink that leads out of the tree): that option.
    public var option: ArchiveUnpackOptions.Option?
    /// The error this one was made from: for ``Code/io``, the file
    /// layer's `FileWrapperError`, with the failed system call, its path and
    /// `errno` (the message is its description). Not compared by `==`.
    public var underlying: (any Error)?

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - archive: The archive, as the caller named it.
    ///   - entry: The entry's path as stored, when the error is about one.
    ///   - message: What went wrong, without the archive or the entry.
    ///   - limit: For ``Code/limitExceeded``, the limit that was reached.
    ///   - option: The option of ``ArchiveUnpackOptions`` that lifts the refusal.
    ///   - underlying: The error this one was made from.
    public init(
        _ code: Code, archive: String, entry: String? = nil, message: String, limit: ArchiveReadLimits.Limit? = nil,
        option: ArchiveUnpackOptions.Option? = nil, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.archive = archive
        self.entry = entry
        self.message = message
        self.limit = limit
        self.option = option
        self.underlying = underlying
    }

    /// A failure of the file layer while reading or writing `archive`.
    init(_ error: FileWrapperError, archive: String, entry: String? = nil) {
        self.init(.io, archive: archive, entry: entry, message: error.description, underlying: error)
    }

    /// Everything but the cause.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        (lhs.code, lhs.archive, lhs.entry, lhs.message, lhs.limit, lhs.option)
            == (rhs.code, rhs.archive, rhs.entry, rhs.message, rhs.limit, rhs.option)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(archive)
        hasher.combine(entry)
        hasher.combine(message)
        hasher.combine(limit)
        hasher.combine(option)
    }

    /// The archive, then the entry.
    public var paths: [String] { [archive] + (entry.map { [$0] } ?? []) }
    /// The call that failed under this error, where one did.
    public var systemCall: String? { firstSystemCall()?.name }
    public var errno: Errno? { firstSystemCall()?.errno }
}

extension ArchiveError: CustomStringConvertible, LocalizedError {
    /// Control characters in the entry are escaped (`\u{1B}`), and an entry
    /// longer than 240 characters is cut to its first 200, so that a
    /// hostile name can neither drive a terminal nor flood it.
    /// A reached limit is named by its property (`(maxEntries)`), and so is
    /// an option that lifts the refusal (`(keepsOutsideLinks keeps such links)`).
    public var description: String {
        description { "(\($0.rawValue))" }
    }

    /// The description, with a reached limit named by `limitHint` and an
    /// option that lifts the refusal by `optionHint` (a command line names
    /// its flags instead of the properties), and the cause where the
    /// message does not say it.
    ///
    /// - Parameters:
    ///   - limitHint: The words that say how to raise a limit.
    ///   - optionHint: The words that say how to lift a refusal.
    /// - Returns: The sentence, with the cause chain after it.
    public func description(
        limitHint: (ArchiveReadLimits.Limit) -> String,
        optionHint: (ArchiveUnpackOptions.Option) -> String = { "(\($0.rawValue) keeps such links)" }
    ) -> String {
        let hint = (limit.map { " " + limitHint($0) } ?? "") + (option.map { " " + optionHint($0) } ?? "")
        if let entry {
            let shown = PathDisplay.text(PathDisplay.shortened(entry).utf8)
            return ErrorChain.sentence("\(archive): \"\(shown)\": \(message)\(hint)", cause: underlying)
        }
        return ErrorChain.sentence("\(archive): \(message)\(hint)", cause: underlying)
    }

    public var errorDescription: String? { description }
}

extension ArchiveError {
    /// Runs system calls, turning a ``FileWrapperError`` (which names the
    /// path and the call) into an ``ArchiveError`` that also names the
    /// archive and the entry.
    @discardableResult
    static func io<Result>(archive: String, entry: String? = nil, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as FileWrapperError {
            throw ArchiveError(error, archive: archive, entry: entry)
        }
    }
}
