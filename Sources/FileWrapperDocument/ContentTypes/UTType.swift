import Foundation

/// A uniform type identifier: what kind of data a file holds, as
/// UniformTypeIdentifiers' `UTType` describes it on Apple's systems, with
/// the same names and behaviour.
///
/// A type is its identifier (compared without regard to case, as Apple
/// does). What it conforms to and which filename extensions and MIME types
/// it has come from its declaration: the system types this module declares
/// (``UTType/plainText``, ``UTType/package``, ...), the declarations a
/// program registers with ``UTType/register(_:)``, or, for a dynamic type
/// (`dyn.` identifier) made from an unknown extension, the identifier itself.
public struct UTType: Sendable {
    /// The type's identifier, such as `public.plain-text` or `com.example.notes`.
    public let identifier: String
    /// The identifier lowercased: what equality and lookups use.
    let key: String
    /// What the type says of itself when nothing is declared under its
    /// identifier: set by ``init(exportedAs:conformingTo:)`` and
    /// ``init(importedAs:conformingTo:)`` for a type nobody registered.
    let fallback: UTTypeDeclaration?

    init(identifier: String, fallback: UTTypeDeclaration? = nil) {
        self.identifier = identifier
        key = identifier.lowercased()
        self.fallback = fallback
    }

    /// The type declared under `identifier` (a system type, a registered
    /// one, or a dynamic identifier); `nil` if nothing is known of it, as
    /// on Apple's systems.
    ///
    /// - Parameter identifier: The type's identifier, in any case.
    public init?(_ identifier: String) {
        let type = UTType(identifier: identifier)
        guard type.declaration != nil else { return nil }
        self = type
    }

    /// The declaration that describes this type now.
    var declaration: UTTypeDeclaration? {
        UTTypeRegistry.shared.declaration(forKey: key) ?? DynamicTypeIdentifier.declaration(for: identifier) ?? fallback
    }

    /// Whether a system type or a registered declaration defines this type.
    public var isDeclared: Bool { UTTypeRegistry.shared.declaration(forKey: key) != nil }

    /// Whether this type was made up for a tag that no declared type has
    /// (its identifier starts with `dyn.`).
    public var isDynamic: Bool { key.hasPrefix(DynamicTypeIdentifier.prefix) }

    /// Whether the identifier is in the `public.` domain that Apple reserves for standard types.
    public var isPublic: Bool { key.hasPrefix("public.") }

    /// The description the declaration gives (`UTTypeDescription`), such as "plain text".
    public var localizedDescription: String? { declaration?.typeDescription }

    /// The page that describes the type, as its declaration gives it
    /// (`UTTypeReferenceURL`); nil when none (or a blank one) is declared.
    public var referenceURL: URL? { declaration?.referenceURL }

    /// Every type this one conforms to, directly or through its
    /// supertypes, itself excluded.
    public var supertypes: Set<UTType> {
        Set(supertypeKeys.map { UTType(identifier: UTTypeRegistry.shared.declaration(forKey: $0)?.identifier ?? $0) })
    }

    /// Whether this type is `type` or conforms to it through its supertypes.
    ///
    /// - Parameter type: The type to compare with.
    /// - Returns: `true` when this type is `type` or conforms to it.
    public func conforms(to type: UTType) -> Bool {
        key == type.key || supertypeKeys.contains(type.key)
    }

    /// Whether this type conforms to `type` and is not `type` itself.
    ///
    /// - Parameter type: The type to compare with.
    /// - Returns: `true` when this type conforms to `type` and is another.
    public func isSubtype(of type: UTType) -> Bool {
        key != type.key && conforms(to: type)
    }

    /// Whether `type` conforms to this type and is not this type itself.
    ///
    /// - Parameter type: The type to compare with.
    /// - Returns: `true` when `type` conforms to this type and is another.
    public func isSupertype(of type: UTType) -> Bool {
        type.isSubtype(of: self)
    }

    /// The keys of all supertypes, followed through the declarations.
    var supertypeKeys: Set<String> {
        var found: Set<String> = []
        var pending = (declaration?.conformsTo ?? []).map { $0.lowercased() }
        while let next = pending.popLast() {
            guard next != key, found.insert(next).inserted else { continue }
            if let parent = UTTypeRegistry.shared.declaration(forKey: next) ?? DynamicTypeIdentifier.declaration(for: next) {
                pending += parent.conformsTo.map { $0.lowercased() }
            }
        }
        return found
    }
}

extension UTType: Hashable {
    public static func == (lhs: UTType, rhs: UTType) -> Bool { lhs.key == rhs.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

extension UTType: CustomStringConvertible, CustomDebugStringConvertible {
    /// The identifier.
    public var description: String { identifier }

    /// The identifier and, when known, the description.
    public var debugDescription: String {
        localizedDescription.map { "\(identifier) (\($0))" } ?? identifier
    }
}

extension UTType {
    /// A type your program owns, described by the declarations it registered
    /// (``register(_:)``). Undeclared, it still has this identifier and
    /// conforms to `parentType` (and to `public.data` when none is given).
    ///
    /// - Parameters:
    ///   - identifier: The type's identifier.
    ///   - parentType: The type it conforms to when it is not declared; nil
    ///     for `public.data`.
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.init(declaredAs: identifier, conformingTo: parentType)
    }

    /// A type another program owns and yours reads or writes; resolved like
    /// ``init(exportedAs:conformingTo:)``. A registered exported
    /// declaration of the same identifier takes precedence over an imported one.
    ///
    /// - Parameters:
    ///   - identifier: The type's identifier.
    ///   - parentType: The type it conforms to when it is not declared; nil
    ///     for `public.data`.
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.init(declaredAs: identifier, conformingTo: parentType)
    }

    /// The registered type, or an undeclared one that keeps everything
    /// `parentType` conforms to (even where that parent is undeclared too).
    private init(declaredAs identifier: String, conformingTo parentType: UTType?) {
        let parent = parentType ?? .data
        let parents = [parent.identifier] + parent.supertypeKeys.sorted()
        self.init(identifier: identifier, fallback: UTTypeDeclaration(identifier: identifier, conformsTo: parents))
    }
}
