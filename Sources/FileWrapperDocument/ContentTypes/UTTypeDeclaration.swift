import Foundation

/// One type's declaration, as an `Info.plist` entry of
/// `UTExportedTypeDeclarations` or `UTImportedTypeDeclarations` gives it.
public struct UTTypeDeclaration: Hashable, Sendable {
    /// `UTTypeIdentifier`.
    public var identifier: String
    /// `UTTypeConformsTo`: the identifiers of the direct supertypes.
    public var conformsTo: [String]
    /// `UTTypeTagSpecification`: filename extensions (without the dot),
    /// MIME types and other tags, by class.
    public var tags: [UTTagClass: [String]]
    /// `UTTypeDescription`.
    public var typeDescription: String?
    /// `UTTypeReferenceURL`.
    public var referenceURL: URL?

    /// A declaration with the values given.
    ///
    /// - Parameters:
    ///   - identifier: `UTTypeIdentifier`.
    ///   - conformsTo: `UTTypeConformsTo`: the direct supertypes' identifiers.
    ///   - tags: `UTTypeTagSpecification`: the tags by class.
    ///   - typeDescription: `UTTypeDescription`.
    ///   - referenceURL: `UTTypeReferenceURL`.
    public init(
        identifier: String, conformsTo: [String] = [], tags: [UTTagClass: [String]] = [:],
        typeDescription: String? = nil, referenceURL: URL? = nil
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.tags = tags
        self.typeDescription = typeDescription
        self.referenceURL = referenceURL
    }

    /// A declaration with filename extensions and MIME types, as the system types are written.
    init(_ identifier: String, _ conformsTo: [String], extensions: [String] = [], mimeTypes: [String] = [], _ typeDescription: String) {
        var tags: [UTTagClass: [String]] = [:]
        if !extensions.isEmpty { tags[.filenameExtension] = extensions }
        if !mimeTypes.isEmpty { tags[.mimeType] = mimeTypes }
        self.init(identifier: identifier, conformsTo: conformsTo, tags: tags, typeDescription: typeDescription)
    }
}
