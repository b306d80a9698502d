/// Identifiers for types that nobody declared, made from a tag such as an
/// unknown filename extension, as Apple makes `dyn.` identifiers: the tag,
/// its class and the supertype are encoded in the identifier, so that the
/// same tag always gives the same type and the type can be rebuilt from its
/// identifier alone.
///
/// The encoding is this module's own (base 32 of `supertype`, tag class and
/// tag, one per line); the identifiers do not match Apple's byte for byte.
enum DynamicTypeIdentifier {
    static let prefix = "dyn.a"

    /// Lowercase RFC 4648 base-32 digits: identifiers stay within `[a-z2-7]`.
    private static let digits = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// The identifier of the dynamic type for `tag`.
    static func make(tag: String, of tagClass: UTTagClass, conformingTo supertype: String) -> String {
        prefix + encode(Array([supertype, tagClass.rawValue, tag].joined(separator: "\n").utf8))
    }

    /// The declaration a dynamic identifier encodes; `nil` for any other identifier.
    static func declaration(for identifier: String) -> UTTypeDeclaration? {
        let lowercased = identifier.lowercased()
        guard lowercased.hasPrefix(prefix),
              let bytes = decode(lowercased.dropFirst(prefix.count)),
              let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let fields = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 3, !fields[0].isEmpty, !fields[2].isEmpty else { return nil }
        return UTTypeDeclaration(identifier: identifier, conformsTo: [fields[0]], tags: [UTTagClass(rawValue: fields[1]): [fields[2]]])
    }

    private static func encode(_ bytes: [UInt8]) -> String {
        var result: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                result.append(digits[(buffer >> bits) & 31])
            }
        }
        if bits > 0 { result.append(digits[(buffer << (5 - bits)) & 31]) }
        return String(decoding: result, as: UTF8.self)
    }

    private static func decode(_ text: Substring) -> [UInt8]? {
        var result: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in text.utf8 {
            guard let value = digits.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5 | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                result.append(UInt8((buffer >> bits) & 0xFF))
            }
        }
        return result
    }
}
