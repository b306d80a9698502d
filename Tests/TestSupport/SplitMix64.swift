import FileWrapperKit

/// A seeded random number generator, so that a test's random data is the
/// same on every run and a failure can be replayed: SplitMix64 (Steele,
/// Lea and Flood), as swift-algorithms' tests use it.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes, made eight at a time (a call per byte, as
    /// `UInt8.random(in:)` in a closure makes them, is slow in debug and
    /// sanitizer builds).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        [UInt8](raceFreeUninitializedCapacity: count) { buffer, initialized in
            var index = 0
            while index < count {
                var word = next()
                for _ in 0..<min(8, count - index) {
                    buffer[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
            initialized = count
        }
    }

    /// `count` random bytes from `range` (such as printable ASCII), eight
    /// to a draw; the slight bias of taking each byte modulo the range's
    /// size does not matter to a test.
    public mutating func bytes(_ count: Int, in range: ClosedRange<UInt8>) -> [UInt8] {
        let width = UInt16(range.upperBound - range.lowerBound) + 1
        var bytes = bytes(count)
        for index in bytes.indices {
            bytes[index] = range.lowerBound + UInt8(UInt16(bytes[index]) % width)
        }
        return bytes
    }
}
