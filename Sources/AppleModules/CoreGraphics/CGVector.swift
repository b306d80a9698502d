// `import CoreGraphics` on Linux. Foundation there already declares
// `CGFloat`, `CGPoint`, `CGSize` and `CGRect` (with `insetBy`, `union`,
// `divided` ...), so this module re-exports Foundation's types rather
// than declaring second ones, and adds what Foundation lacks:
// `CGVector`, `CGAffineTransform` and `applying(_:)`.
@_exported import Foundation

/// A two-dimensional vector, as CoreGraphics declares it.
public struct CGVector: Equatable, Sendable {
    public var dx: CGFloat
    public var dy: CGFloat

    /// The zero vector, as the C struct's default initializer makes it.
    public init() {
        self.init(dx: 0, dy: 0)
    }

    public init(dx: CGFloat, dy: CGFloat) {
        self.dx = dx
        self.dy = dy
    }

    public init(dx: Double, dy: Double) {
        self.init(dx: CGFloat(dx), dy: CGFloat(dy))
    }

    public init(dx: Int, dy: Int) {
        self.init(dx: CGFloat(dx), dy: CGFloat(dy))
    }

    public static var zero: CGVector { CGVector() }
}

extension CGVector: Codable {
    /// Decodes `[dx, dy]`, the unkeyed form Apple's CoreGraphics writes.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        self.init(dx: try container.decode(CGFloat.self), dy: try container.decode(CGFloat.self))
    }

    /// Encodes `[dx, dy]`, as Apple's CoreGraphics does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(dx)
        try container.encode(dy)
    }
}
