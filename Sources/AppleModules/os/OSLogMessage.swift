import Foundation

/// A log message written as a string literal with interpolations, as
/// `os.OSLogMessage`: each interpolated value can carry a privacy, and
/// numbers a format and an alignment.
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral, Sendable {
    let text: String

    public init(stringLiteral value: String) {
        text = value
    }

    public init(stringInterpolation: OSLogInterpolation) {
        text = stringInterpolation.text
    }
}

/// The interpolations Apple's `OSLogInterpolation` accepts. Values are
/// rendered at once (nothing here discards a level), then redacted by
/// their privacy: `.public` as is; `.private` and `.sensitive` as
/// `<private>`; `.auto`, the default, shows numbers, booleans and types
/// and redacts strings and other values, as Apple's log does outside a
/// debugger.
public struct OSLogInterpolation: StringInterpolationProtocol, Sendable {
    var text = ""

    public init(literalCapacity: Int, interpolationCount: Int) {
        text.reserveCapacity(literalCapacity + 16 * interpolationCount)
    }

    public mutating func appendLiteral(_ literal: String) {
        text += literal
    }

    public mutating func appendInterpolation(
        _ value: String, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        append(value, align: align, privacy: privacy, scalar: false)
    }

    /// Also where an integer without `format:` goes (Swift prefers the
    /// overload with fewer defaults), hence the check for a number.
    public mutating func appendInterpolation<T: CustomStringConvertible>(
        _ value: T, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        append(value.description, align: align, privacy: privacy, scalar: value is any Numeric)
    }

    public mutating func appendInterpolation<T: FixedWidthInteger>(
        _ value: T, format: OSLogIntegerFormatting = .decimal, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        append(format.render(value), align: align, privacy: privacy, scalar: true)
    }

    public mutating func appendInterpolation(
        _ value: Double, format: OSLogFloatFormatting = .fixed, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        append(format.render(value), align: align, privacy: privacy, scalar: true)
    }

    public mutating func appendInterpolation(
        _ value: Float, format: OSLogFloatFormatting = .fixed, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        append(format.render(Double(value)), align: align, privacy: privacy, scalar: true)
    }

    public mutating func appendInterpolation(
        _ value: Bool, format: OSLogBoolFormat = .truth, privacy: OSLogPrivacy = .auto
    ) {
        let word = switch format {
        case .truth: value ? "true" : "false"
        case .answer: value ? "YES" : "NO"
        }
        append(word, align: .none, privacy: privacy, scalar: true)
    }

    public mutating func appendInterpolation(
        _ value: Any.Type, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        append(String(reflecting: value), align: align, privacy: privacy, scalar: true)
    }

    private mutating func append(_ value: String, align: OSLogStringAlignment, privacy: OSLogPrivacy, scalar: Bool) {
        text += align.pad(privacy.shows(scalar: scalar) ? value : privacy.redacted(value))
    }
}

/// Whether an interpolated value is shown or redacted, as `os.OSLogPrivacy`.
public struct OSLogPrivacy: Equatable, Sendable {
    enum Kind: Equatable, Sendable { case shown, redacted, auto }
    let kind: Kind
    let mask: Mask

    /// How a redacted value is written: `<private>`, or with `.hash` a
    /// hash salted once per process, so equal values can be matched
    /// within one run without being shown.
    public struct Mask: Equatable, Sendable {
        let hashes: Bool
        public static let none = Mask(hashes: false)
        public static let hash = Mask(hashes: true)
    }

    public static let `public` = OSLogPrivacy(kind: .shown, mask: .none)
    public static let `private` = OSLogPrivacy(kind: .redacted, mask: .none)
    public static let sensitive = OSLogPrivacy(kind: .redacted, mask: .none)
    public static let auto = OSLogPrivacy(kind: .auto, mask: .none)
    public static func `private`(mask: Mask) -> OSLogPrivacy { OSLogPrivacy(kind: .redacted, mask: mask) }
    public static func sensitive(mask: Mask) -> OSLogPrivacy { OSLogPrivacy(kind: .redacted, mask: mask) }
    public static func auto(mask: Mask) -> OSLogPrivacy { OSLogPrivacy(kind: .auto, mask: mask) }

    func shows(scalar: Bool) -> Bool {
        kind == .shown || (kind == .auto && scalar)
    }

    func redacted(_ value: String) -> String {
        guard mask.hashes else { return "<private>" }
        // FNV-1a over the salt's bytes, then the value's.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let salt = withUnsafeBytes(of: Self.salt) { Array($0) }
        for byte in salt + Array(value.utf8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "<mask.hash: '\(String(hash, radix: 16))'>"
    }

    private static let salt = UInt64.random(in: .min ... .max)
}

/// Padding to a number of columns, as `os.OSLogStringAlignment`.
public struct OSLogStringAlignment: Sendable {
    let columns: Int
    let left: Bool

    public static let none = OSLogStringAlignment(columns: 0, left: false)
    public static func left(columns: Int) -> OSLogStringAlignment { OSLogStringAlignment(columns: columns, left: true) }
    public static func right(columns: Int) -> OSLogStringAlignment { OSLogStringAlignment(columns: columns, left: false) }

    func pad(_ value: String) -> String {
        let padding = String(repeating: " ", count: max(0, columns - value.count))
        return left ? value + padding : padding + value
    }
}

/// How an interpolated Bool is written, as `os.OSLogBoolFormat`.
public enum OSLogBoolFormat: Sendable {
    /// `true` / `false`.
    case truth
    /// `YES` / `NO`.
    case answer
}

/// How an interpolated integer is written, as `os.OSLogIntegerFormatting`.
public struct OSLogIntegerFormatting: Sendable {
    let radix: Int
    let explicitPositiveSign: Bool
    let includePrefix: Bool
    let uppercase: Bool
    let minDigits: Int

    public static let decimal = decimal()
    public static let hex = hex()
    public static let octal = octal()

    public static func decimal(explicitPositiveSign: Bool = false, minDigits: Int = 0) -> OSLogIntegerFormatting {
        OSLogIntegerFormatting(radix: 10, explicitPositiveSign: explicitPositiveSign, includePrefix: false, uppercase: false, minDigits: minDigits)
    }

    public static func hex(
        explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false, minDigits: Int = 0
    ) -> OSLogIntegerFormatting {
        OSLogIntegerFormatting(radix: 16, explicitPositiveSign: explicitPositiveSign, includePrefix: includePrefix, uppercase: uppercase, minDigits: minDigits)
    }

    public static func octal(
        explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false, minDigits: Int = 0
    ) -> OSLogIntegerFormatting {
        OSLogIntegerFormatting(radix: 8, explicitPositiveSign: explicitPositiveSign, includePrefix: includePrefix, uppercase: uppercase, minDigits: minDigits)
    }

    /// As printf's `%d`, `%x` and `%o` write it: hex and octal show a
    /// negative number's bits (two's complement of its width).
    func render<T: FixedWidthInteger>(_ value: T) -> String {
        let negative = radix == 10 && value < 0
        var digits = radix == 10
            ? String(value.magnitude)
            : String(T.Magnitude(truncatingIfNeeded: value), radix: radix, uppercase: uppercase)
        if digits.count < minDigits { digits = String(repeating: "0", count: minDigits - digits.count) + digits }
        let prefix = !includePrefix ? "" : radix == 16 ? (uppercase ? "0X" : "0x") : "0"
        let sign = negative ? "-" : explicitPositiveSign ? "+" : ""
        return sign + prefix + digits
    }
}

/// How an interpolated floating-point number is written, as
/// `os.OSLogFloatFormatting`: printf's `%f`, `%e` or `%g`.
public struct OSLogFloatFormatting: Sendable {
    let conversion: Character
    let precision: Int?
    let explicitPositiveSign: Bool

    public static let fixed = fixed()
    public static let exponential = exponential()
    public static let hybrid = hybrid()

    public static func fixed(precision: Int? = nil, explicitPositiveSign: Bool = false, uppercase: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(conversion: uppercase ? "F" : "f", precision: precision, explicitPositiveSign: explicitPositiveSign)
    }

    public static func exponential(precision: Int? = nil, explicitPositiveSign: Bool = false, uppercase: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(conversion: uppercase ? "E" : "e", precision: precision, explicitPositiveSign: explicitPositiveSign)
    }

    public static func hybrid(precision: Int? = nil, explicitPositiveSign: Bool = false, uppercase: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(conversion: uppercase ? "G" : "g", precision: precision, explicitPositiveSign: explicitPositiveSign)
    }

    func render(_ value: Double) -> String {
        let specifier = "%" + (explicitPositiveSign ? "+" : "") + (precision.map { ".\($0)" } ?? "") + String(conversion)
        return String(format: specifier, value)
    }
}
