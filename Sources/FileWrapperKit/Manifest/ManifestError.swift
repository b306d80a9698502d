import Foundation
import SystemPackage

/// An input that cannot be made into a manifest, or a manifest file that
/// cannot be read: the file, the entry when there is one, what is wrong,
/// and the limit reached when that is why. It prints as
/// `FILE: "ENTRY": message (maxEntries)`.
public struct ManifestError: FileWrapperKitError, Sendable, Hashable, LocalizedError {
    /// The file or directory the manifest is made from.
    public var file: String
    /// The entry's path for display, when the trouble is about one entry.
    public var entry: String?
    public var message: String
    /// The limit that was reached, when a manifest file declares more than
    /// ``ManifestReadLimits`` allow.
    public var limit: ManifestReadLimits.Limit?
    /// The error this one was made from (a ``FileWrapperError`` where a
    /// system call failed). Not compared by `==`.
    public var underlying: (any Error)?

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - file: The file or directory the manifest is made from.
    ///   - entry: The entry's path for display, when the trouble is about one.
    ///   - message: What is wrong, without the file or the entry.
    ///   - limit: The limit that was reached, when that is why.
    ///   - underlying: The error this one was made from.
    public init(file: String, entry: String? = nil, message: String, limit: ManifestReadLimits.Limit? = nil, underlying: (any Error)? = nil) {
        self.file = file
        self.entry = entry
        self.message = message
        self.limit = limit
        self.underlying = underlying
    }

    /// Everything but the cause.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        (lhs.file, lhs.entry, lhs.message, lhs.limit) == (rhs.file, rhs.entry, rhs.message, rhs.limit)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(file)
        hasher.combine(entry)
        hasher.combine(message)
        hasher.combine(limit)
    }

    /// The file, then the entry.
    public var paths: [String] { [file] + (entry.map { [$0] } ?? []) }
    /// The call that failed under this error, where one did.
    public var systemCall: String? { firstSystemCall()?.name }
    public var errno: Errno? { firstSystemCall()?.errno }

    public var description: String {
        description { "(\($0.rawValue))" }
    }

    /// The description, with a reached limit named by `limitHint` (a
    /// command line names its flag instead of the property), and the
    /// cause where the message does not say it. An entry
    /// longer than 240 characters is cut to its first 200, as
    /// `ArchiveError` cuts it, so that a path over the limit does not
    /// flood the terminal.
    ///
    /// - Parameter limitHint: The words that say how to raise a limit.
    /// - Returns: The sentence, with the cause chain after it.
    public func description(limitHint: (ManifestReadLimits.Limit) -> String) -> String {
        let hint = limit.map { " " + limitHint($0) } ?? ""
        guard let entry else { return ErrorChain.sentence("\(file): \(message)\(hint)", cause: underlying) }
        return ErrorChain.sentence("\(file): \"\(PathDisplay.shortened(entry))\": \(message)\(hint)", cause: underlying)
    }

    public var errorDescription: String? { description }
}
