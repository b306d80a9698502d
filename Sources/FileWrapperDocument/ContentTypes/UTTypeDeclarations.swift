import Foundation

/// A program's type declarations, as an `Info.plist` lists them under
/// `UTExportedTypeDeclarations` (types it owns) and
/// `UTImportedTypeDeclarations` (types it uses), read from a property list
/// (XML or binary) or the same structure in JSON.
///
/// Apple's systems read the main bundle's `Info.plist` by themselves; a
/// Linux program has no bundle, so it registers its declarations once, at
/// start, with ``UTType/register(_:)`` or
/// ``UTType/registerDeclarations(contentsOf:)``. Registration is safe from
/// any thread, and a type made before it resolves through it afterwards
/// (a ``UTType`` is its identifier; declarations are looked up when asked).
///
/// Read as leniently as Launch Services reads an app's `Info.plist`, so
/// that one as Xcode writes it is taken whole: other keys are passed over,
/// and a blank `UTTypeReferenceURL` (Xcode's empty field) is no URL.
public struct UTTypeDeclarations: Hashable, Sendable {
    public var exported: [UTTypeDeclaration]
    public var imported: [UTTypeDeclaration]

    /// The declarations given.
    ///
    /// - Parameters:
    ///   - exported: The types the program owns.
    ///   - imported: The types other programs own.
    public init(exported: [UTTypeDeclaration] = [], imported: [UTTypeDeclaration] = []) {
        self.exported = exported
        self.imported = imported
    }

    /// The declarations in the file at `url`.
    ///
    /// - Parameter url: A property list or JSON file.
    /// - Throws: ``UTTypeDeclarationError`` that names the file and what is
    ///   wrong: it cannot be read, or its contents are refused as by
    ///   ``init(data:source:)``.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw UTTypeDeclarationError(source: url.path, message: "cannot be read: \(error.localizedDescription)")
        }
        try self.init(data: data, source: url.path)
    }

    /// The declarations in `data`, a property list or JSON; `source`
    /// names it in errors.
    ///
    /// - Parameters:
    ///   - data: A property list or JSON, with `UTExportedTypeDeclarations`,
    ///     `UTImportedTypeDeclarations` or both.
    ///   - source: Its name in errors.
    /// - Throws: ``UTTypeDeclarationError`` naming `source` when `data` is
    ///   neither a property list nor JSON, declares no types, or holds a
    ///   malformed declaration.
    public init(data: Data, source: String) throws {
        let parser = DeclarationParser(source: source)
        let root = try parser.root(of: data)
        let exported = try root["UTExportedTypeDeclarations"].map { try parser.declarations($0, key: "UTExportedTypeDeclarations") }
        let imported = try root["UTImportedTypeDeclarations"].map { try parser.declarations($0, key: "UTImportedTypeDeclarations") }
        guard exported != nil || imported != nil else {
            throw parser.error("declares no types: it has neither UTExportedTypeDeclarations nor UTImportedTypeDeclarations")
        }
        self.init(exported: exported ?? [], imported: imported ?? [])
    }
}

extension UTType {
    /// Makes `declarations` known to every ``UTType`` in the process.
    /// A later declaration of the same identifier and kind replaces an
    /// earlier one; the system types cannot be redeclared.
    ///
    /// - Parameter declarations: The declarations to add.
    public static func register(_ declarations: UTTypeDeclarations) {
        UTTypeRegistry.shared.register(declarations)
    }

    /// Reads the declarations in the file at `url` (see
    /// ``UTTypeDeclarations``) and registers them.
    ///
    /// - Parameter url: A property list or JSON file.
    /// - Throws: ``UTTypeDeclarationError`` naming the file, as
    ///   ``UTTypeDeclarations/init(contentsOf:)``; nothing is registered.
    public static func registerDeclarations(contentsOf url: URL) throws {
        register(try UTTypeDeclarations(contentsOf: url))
    }
}

/// A declarations file that cannot be used: which file, and what is wrong with it.
public struct UTTypeDeclarationError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The file's path, or the name given for data.
    public var source: String
    public var message: String

    /// An error about `source`.
    ///
    /// - Parameters:
    ///   - source: The file's path, or the name given for data.
    ///   - message: What is wrong.
    public init(source: String, message: String) {
        self.source = source
        self.message = message
    }

    public var description: String { "\(source): \(message)" }
    public var errorDescription: String? { description }
}

/// Reads the `Info.plist` structure, checking each value's kind, as
/// leniently as Launch Services reads an app's: keys it does not know
/// (icons, `CFBundleDocumentTypes`, keys of later systems) are passed
/// over, and a blank `UTTypeReferenceURL` is no URL.
private struct DeclarationParser {
    let source: String

    func error(_ message: String) -> UTTypeDeclarationError {
        UTTypeDeclarationError(source: source, message: message)
    }

    /// The top-level dictionary: JSON when the data starts with `{` or `[`, else a property list.
    func root(of data: Data) throws -> [String: Any] {
        let first = data.first { !Set(" \t\r\n".utf8).contains($0) }
        let value: Any
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            do {
                value = try JSONSerialization.jsonObject(with: data)
            } catch {
                throw self.error("is not valid JSON: \(Self.reason(error))")
            }
        } else {
            do {
                value = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            } catch {
                throw self.error("is neither a property list nor JSON: \(Self.reason(error))")
            }
        }
        guard let dictionary = value as? [String: Any] else {
            throw self.error("the top level is not a dictionary")
        }
        return dictionary
    }

    func declarations(_ value: Any, key: String) throws -> [UTTypeDeclaration] {
        guard let entries = value as? [Any] else { throw error("\(key) is not an array") }
        return try entries.enumerated().map { index, entry in
            guard let dictionary = entry as? [String: Any] else {
                throw error("\(key)[\(index)] is not a dictionary")
            }
            return try declaration(dictionary, at: "\(key)[\(index)]")
        }
    }

    private func declaration(_ entry: [String: Any], at place: String) throws -> UTTypeDeclaration {
        guard let identifier = entry["UTTypeIdentifier"] as? String else {
            throw error("\(place) has no UTTypeIdentifier string")
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
        guard !identifier.isEmpty, identifier.allSatisfy(allowed.contains),
              !identifier.hasPrefix("."), !identifier.hasSuffix("."), !identifier.lowercased().hasPrefix("dyn.")
        else {
            throw error("\(place): \"\(identifier)\" is not a type identifier (reverse-DNS letters, digits, '-' and '.')")
        }
        let place = "\(place) (\(identifier))"
        var tags: [UTTagClass: [String]] = [:]
        if let specification = entry["UTTypeTagSpecification"] {
            guard let classes = specification as? [String: Any] else {
                throw error("\(place): UTTypeTagSpecification is not a dictionary")
            }
            for (tagClass, value) in classes {
                tags[UTTagClass(rawValue: tagClass)] = try strings(value, "UTTypeTagSpecification.\(tagClass)", place)
                    .map { tagClass == UTTagClass.filenameExtension.rawValue && $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }
            }
        }
        // Blank, as Xcode writes an empty Reference URL field, is no URL.
        var referenceURL: URL?
        if let reference = entry["UTTypeReferenceURL"] {
            guard let text = reference as? String else {
                throw error("\(place): UTTypeReferenceURL is not a URL string")
            }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty {
                guard let url = URL(string: trimmed) else {
                    throw error("\(place): UTTypeReferenceURL is not a URL string")
                }
                referenceURL = url
            }
        }
        let typeDescription = entry["UTTypeDescription"]
        guard typeDescription == nil || typeDescription is String else {
            throw error("\(place): UTTypeDescription is not a string")
        }
        return UTTypeDeclaration(
            identifier: identifier,
            conformsTo: try entry["UTTypeConformsTo"].map { try strings($0, "UTTypeConformsTo", place) } ?? [],
            tags: tags, typeDescription: typeDescription as? String, referenceURL: referenceURL)
    }

    /// A string or an array of strings, as `Info.plist` allows for lists.
    private func strings(_ value: Any, _ key: String, _ place: String) throws -> [String] {
        if let string = value as? String { return [string] }
        guard let array = value as? [Any], let strings = array as? [String] else {
            throw error("\(place): \(key) is neither a string nor an array of strings")
        }
        return strings
    }

    private static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }
}
