/// Where two byte sequences first differ, for contents that are not text:
/// the offset, and a few bytes of each side from there, as `cmp -l` shows
/// them.
public struct ByteDifference: Sendable, Hashable {
    /// The first differing offset, 0-based; the shorter side's length when
    /// one is a prefix of the other.
    public let offset: Int
    /// Up to ``contextLength`` bytes of each side from `offset`.
    public let oldBytes: ArraySlice<UInt8>
    public let newBytes: ArraySlice<UInt8>

    /// How many bytes of each side a difference shows.
    public static let contextLength = 8

    /// The first difference of `old` and `new`; nil when they are equal.
    ///
    /// - Parameters:
    ///   - old: The bytes before.
    ///   - new: The bytes after.
    public init?(old: [UInt8], new: [UInt8]) {
        let common = old.withUnsafeBufferPointer { a in
            new.withUnsafeBufferPointer { b in
                var index = 0
                while index < a.count, index < b.count, a[index] == b[index] { index += 1 }
                return index
            }
        }
        guard common < old.count || common < new.count else { return nil }
        offset = common
        // Copies: a slice of a side would keep all of it alive.
        oldBytes = ArraySlice(Array(old[common..<min(old.count, common + Self.contextLength)]))
        newBytes = ArraySlice(Array(new[common..<min(new.count, common + Self.contextLength)]))
    }

    /// Whether `bytes` is text to a diff: no NUL byte in its first 8,000
    /// bytes, the rule `git diff` and GNU `diff` apply.
    ///
    /// - Parameter bytes: The contents, or their first 8,000 bytes at least.
    /// - Returns: `true` when the first 8,000 bytes hold no NUL byte.
    public static func isText(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.prefix(8000).contains(0)
    }
}
