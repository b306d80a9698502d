/// A kind of tag that maps other naming schemes to types: filename
/// extensions and MIME types, under the identifiers Apple uses in
/// `UTTypeTagSpecification`.
public struct UTTagClass: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Filename extensions without the dot (`public.filename-extension`).
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
    /// MIME types (`public.mime-type`).
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")

    public var description: String { rawValue }

    /// Tags of these classes compare without regard to case.
    var isCaseInsensitive: Bool { self == .filenameExtension || self == .mimeType }

    /// `tag` as it is compared and stored in dynamic identifiers.
    func normalized(_ tag: String) -> String {
        isCaseInsensitive ? tag.lowercased() : tag
    }
}
