import Foundation

/// The name of an extended attribute (`user.note`) as its bytes, the key
/// of ``ManifestEntry/extendedAttributes``. Linux keeps a name that is not
/// UTF-8, and two names that are canonically equivalent (NFC and NFD) as
/// two attributes; a `String` key would turn the first into U+FFFD and
/// merge the second, so that two attributes would be one.
public struct ExtendedAttributeName: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var bytes: [UInt8]

    /// The name made of `bytes`.
    ///
    /// - Parameter bytes: The name's bytes, `user.` included.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The name whose bytes are `text`'s UTF-8.
    ///
    /// - Parameter text: The name, `user.` included.
    public init(_ text: String) {
        bytes = Array(text.utf8)
    }

    public init(stringLiteral text: String) {
        self.init(text)
    }

    /// The name as a `String`, or `nil` when its bytes are not UTF-8.
    public var string: String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// The name as text that shows every byte (`PathDisplay`).
    public var description: String {
        PathDisplay.text(bytes)
    }

    /// In the order of their bytes.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// A ``FileWrapper``'s attributes (by `String` name, as Foundation keeps
    /// them) by name as bytes.
    static func keyed(_ attributes: [String: Data]) -> [ExtendedAttributeName: [UInt8]] {
        var keyed: [ExtendedAttributeName: [UInt8]] = [:]
        for (name, value) in attributes { keyed[ExtendedAttributeName(name)] = Array(value) }
        return keyed
    }
}
