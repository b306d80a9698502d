import Foundation

/// An input that cannot be made into a manifest, or a manifest file that
/// cannot be read: the file, the entry when there is one, what is wrong,
/// and the limit reached when that is why. It prints as
/// `FILE: "ENTRY": message (maxEntries)`.
public struct ManifestError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// The file or directory the manifest is made from.
    public var file: String
    /// The entry's path for display, when the trouble is about one entry.
    public var entry: String?
    public var message: String
    /// The limit that was reached, when a manifest file declares more than
    /// ``ManifestReadLimits`` allow.
    public var limit: ManifestReadLimits.Limit?

    public init(file: String, entry: String? = nil, message: String, limit: ManifestReadLimits.Limit? = nil) {
        self.file = file
        self.entry = entry
        self.message = message
        self.limit = limit
    }

    public var description: String {
        description { "(\($0.rawValue))" }
    }

    /// The description, with a reached limit named by `limitHint` (a
    /// command line names its flag instead of the property). An entry
    /// longer than 240 characters is cut to its first 200, as
    /// `ArchiveError` cuts it, so that a path over the limit does not
    /// flood the terminal.
    public func description(limitHint: (ManifestReadLimits.Limit) -> String) -> String {
        let hint = limit.map { " " + limitHint($0) } ?? ""
        guard let entry else { return "\(file): \(message)\(hint)" }
        let shown = entry.count > 240 ? entry.prefix(200) + "...(\(entry.utf8.count) bytes)" : Substring(entry)
        return "\(file): \"\(shown)\": \(message)\(hint)"
    }

    public var errorDescription: String? { description }
}
