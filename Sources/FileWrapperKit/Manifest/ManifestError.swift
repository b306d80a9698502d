import Foundation

/// An input that cannot be made into a manifest, or a manifest file that
/// cannot be read: the file, the entry when there is one, and what is wrong.
/// It prints as `FILE: "ENTRY": message`.
public struct ManifestError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// The file or directory the manifest is made from.
    public var file: String
    /// The entry's path for display, when the trouble is about one entry.
    public var entry: String?
    public var message: String

    public init(file: String, entry: String? = nil, message: String) {
        self.file = file
        self.entry = entry
        self.message = message
    }

    public var description: String {
        guard let entry else { return "\(file): \(message)" }
        return "\(file): \"\(entry)\": \(message)"
    }

    public var errorDescription: String? { description }
}
