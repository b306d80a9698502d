// Geometry as Apple's samples write it, with `import CoreGraphics`.
import CoreGraphics
import Foundation
import Testing

struct Layout {
    var bounds: CGRect
    var padding: CGFloat = 8

    var content: CGRect { bounds.insetBy(dx: padding, dy: padding) }

    /// The content turned a quarter about the origin and moved right by the width.
    var turned: CGRect {
        content.applying(CGAffineTransform(translationX: bounds.width, y: 0).rotated(by: .pi / 2))
    }
}

@Suite struct GeometryTests {
    @Test func insetAndTransformedRectangles() {
        let layout = Layout(bounds: CGRect(x: 0, y: 0, width: 100, height: 60))
        #expect(layout.content == CGRect(x: 8, y: 8, width: 84, height: 44))
        let turned = layout.turned
        #expect(abs(turned.minX - 48) < 1e-9 && abs(turned.minY - 8) < 1e-9)
        #expect(abs(turned.width - 44) < 1e-9 && abs(turned.height - 84) < 1e-9)
    }

    @Test func transformsComposeAndInvert() {
        let transform = CGAffineTransform.identity.translatedBy(x: 10, y: 20).scaledBy(x: 2, y: 4)
        // The scale applies first, then the translation (powers of two: exact inverses).
        #expect(CGPoint(x: 1, y: 1).applying(transform) == CGPoint(x: 12, y: 24))
        #expect(CGPoint(x: 12, y: 24).applying(transform.inverted()) == CGPoint(x: 1, y: 1))
        #expect(transform.concatenating(transform.inverted()).isIdentity)
        #expect(CGSize(width: 4, height: 5).applying(transform) == CGSize(width: 8, height: 20))
        let singular = CGAffineTransform(scaleX: 0, y: 1)
        #expect(singular.inverted() == singular)
        #expect(CGRect.null.applying(transform).isNull)
        let vector = CGVector(dx: 3, dy: -4)
        #expect(vector != .zero && vector.dx == 3)
    }

    @Test func oneTypeWithFoundations() throws {
        let point: Foundation.CGPoint = CoreGraphics.CGPoint(x: 1, y: 2)
        #expect(ObjectIdentifier(CoreGraphics.CGPoint.self) == ObjectIdentifier(Foundation.CGPoint.self))
        #expect(ObjectIdentifier(CoreGraphics.CGRect.self) == ObjectIdentifier(Foundation.CGRect.self))
        #expect(ObjectIdentifier(CoreGraphics.CGFloat.self) == ObjectIdentifier(Foundation.CGFloat.self))
        #expect(point.y == 2)
        // Apple's unkeyed Codable forms.
        let encoded = try JSONEncoder().encode(CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6))
        #expect(String(decoding: encoded, as: UTF8.self) == "[1,2,3,4,5,6]")
        #expect(try JSONDecoder().decode(CGVector.self, from: Data("[1.5,2]".utf8)) == CGVector(dx: 1.5, dy: 2))
    }
}
