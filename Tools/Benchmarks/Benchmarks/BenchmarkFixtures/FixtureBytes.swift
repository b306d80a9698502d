/// SplitMix64: a seeded generator, so that every run measures the same bytes.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// File contents of the two kinds the workloads mix: random bytes,
/// which do not compress, and English-like text, which does.
public enum FixtureBytes {
    private static let words = [
        "the", "document", "package", "file", "wrapper", "archive", "index", "of", "and", "a", "to", "in",
        "manifest", "digest", "folder", "image", "thumbnail", "note", "saved", "is", "with", "for", "tree",
    ].map { Array($0.utf8) }

    public static func random(count: Int, using generator: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next().littleEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// Words and spaces, a line break every dozen words or so.
    public static func text(count: Int, using generator: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 16)
        while bytes.count < count {
            bytes.append(contentsOf: words.randomElement(using: &generator)!)
            bytes.append(Int.random(in: 0..<12, using: &generator) == 0 ? UInt8(ascii: "\n") : UInt8(ascii: " "))
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}
