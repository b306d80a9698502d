import FileWrapperKit
import Foundation

/// An error from writing or reading an archive: which archive, which entry,
/// and what went wrong, in one sentence such as
/// `Doc.zip: "../evil": the path leaves the archive's tree`.
public struct ArchiveError: Error, Sendable, Hashable {
    public enum Code: Sendable, Hashable {
        /// libarchive refused or failed; the message is libarchive's.
        case libarchive
        /// The data is damaged or ends early.
        case corrupt
        /// An entry's path is absolute, has `..`, or is otherwise unsafe.
        case unsafePath
        /// An entry of a kind that is not supported (device node, FIFO, socket).
        case unsupportedEntry
        /// The archive is in a format the reader leaves out unless asked
        /// (``ArchiveReadFormats``), and the message names the option that
        /// adds it; or it cannot be read from where it comes (a 7z from a
        /// stream), or checked (a 7z header compressed with another method
        /// than LZMA), and the message says why.
        case unsupportedFormat
        /// No format the reader reads recognises the input: it is not an archive.
        case unrecognizedFormat
        /// Two entries at one path.
        case duplicateEntry
        /// An encrypted entry.
        case encrypted
        /// A limit was reached; the message names it.
        case limitExceeded
        /// Writing or reading the archive file, or writing what it holds, failed.
        case io
        /// The destination of an unpack exists, and replacing it was not asked for.
        case destinationExists
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
    /// For ``Code/io``: the failed system call, its path and `errno`, as
    /// the file layer reported them (the message is its description).
    public var underlying: FileWrapperError?

    public init(
        _ code: Code, archive: String, entry: String? = nil, message: String, limit: ArchiveReadLimits.Limit? = nil,
        option: ArchiveUnpackOptions.Option? = nil, underlying: FileWrapperError? = nil
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
    /// its flags instead of the properties).
    public func description(
        limitHint: (ArchiveReadLimits.Limit) -> String,
        optionHint: (ArchiveUnpackOptions.Option) -> String = { "(\($0.rawValue) keeps such links)" }
    ) -> String {
        let hint = (limit.map { " " + limitHint($0) } ?? "") + (option.map { " " + optionHint($0) } ?? "")
        if let entry {
            let shown = entry.count > 240 ? entry.prefix(200) + "...(\(entry.utf8.count) bytes)" : Substring(entry)
            return "\(archive): \"\(PathDisplay.text(shown.utf8))\": \(message)\(hint)"
        }
        return "\(archive): \(message)\(hint)"
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
