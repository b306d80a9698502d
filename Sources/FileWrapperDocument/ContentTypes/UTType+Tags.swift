extension UTType {
    /// The type's tags by class, as its declaration gives them.
    public var tags: [UTTagClass: [String]] { declaration?.tags ?? [:] }

    /// The first filename extension of the type (`txt` for plain text).
    public var preferredFilenameExtension: String? { tags[.filenameExtension]?.first }

    /// The first MIME type of the type (`text/plain` for plain text).
    public var preferredMIMEType: String? { tags[.mimeType]?.first }

    /// The type that has `tag` of `tagClass` and conforms to `supertype`:
    /// a declared one (registered exported types first, then the system's,
    /// then registered imported ones), else a dynamic type made for the tag.
    /// `nil` for an empty tag.
    ///
    /// - Parameters:
    ///   - tag: The tag, such as `txt` or `text/plain`.
    ///   - tagClass: What kind of tag it is.
    ///   - supertype: The type the result must conform to; nil for any.
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard let first = UTType.types(tag: tag, tagClass: tagClass, conformingTo: supertype).first else { return nil }
        self = first
    }

    /// The type of files with the extension `filenameExtension` (given
    /// without the dot, any case) that conforms to `supertype`.
    ///
    /// - Parameters:
    ///   - filenameExtension: The extension, without the dot.
    ///   - supertype: The type the result must conform to.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// The type of the MIME type `mimeType` that conforms to `supertype`.
    ///
    /// - Parameters:
    ///   - mimeType: The MIME type, such as `text/plain`.
    ///   - supertype: The type the result must conform to.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }

    /// All declared types with `tag`, conforming to `supertype`; a dynamic
    /// type for the tag when none is declared. Empty for an empty tag or
    /// one that holds a line break.
    ///
    /// - Parameters:
    ///   - tag: The tag, such as `txt` or `text/plain`.
    ///   - tagClass: What kind of tag it is.
    ///   - supertype: The type each result must conform to; nil for any.
    /// - Returns: The types, registered exported ones first, then the
    ///   system's, then registered imported ones.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        guard !tag.isEmpty, !tag.contains(where: \.isNewline) else { return [] }
        let wanted = tagClass.normalized(tag)
        let declared = UTTypeRegistry.shared.declarations(withTag: wanted, of: tagClass)
            .map { UTType(identifier: $0.identifier) }
            .filter { supertype.map($0.conforms(to:)) ?? true }
        if !declared.isEmpty { return declared }
        let parent = supertype ?? .data
        return [UTType(identifier: DynamicTypeIdentifier.make(tag: wanted, of: tagClass, conformingTo: parent.identifier))]
    }
}
