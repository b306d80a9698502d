/// Binary property lists written byte by byte from Apple's `bplist00`
/// layout (objects, an offset table, a 32-byte trailer), for what Python's
/// plistlib cannot write: one object referred to from many places, an
/// array that contains itself, a trailer that lies.
public enum BinaryPlistBytes {
    /// A list of `objects` (each encoded), 2-byte references, 4-byte
    /// offsets; the trailer's facts as given, else as they are.
    public static func list(_ objects: [[UInt8]], top: UInt64 = 0, objectCount: UInt64? = nil, tableOffset: UInt64? = nil,
                     offsetSize: UInt8 = 4, referenceSize: UInt8 = 2) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += bigEndian(UInt64(offset), size: Int(offsetSize)) }
        bytes += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
        bytes += bigEndian(objectCount ?? UInt64(objects.count), size: 8) + bigEndian(top, size: 8) + bigEndian(tableOffset ?? UInt64(table), size: 8)
        return bytes
    }

    /// An array of the objects `references` names (fewer than 15).
    public static func array(_ references: [Int]) -> [UInt8] {
        [0xA0 | UInt8(references.count)] + references.flatMap { bigEndian(UInt64($0), size: 2) }
    }

    /// An ASCII string of fewer than 15 characters.
    public static func ascii(_ text: String) -> [UInt8] {
        [0x50 | UInt8(text.utf8.count)] + Array(text.utf8)
    }

    /// `depth` arrays, each naming the next twice, then the string `leaf`:
    /// 2^(depth + 1) - 1 values from depth + 1 objects.
    public static func sharedTwice(depth: Int, leaf: String) -> [UInt8] {
        list((0..<depth).map { array([$0 + 1, $0 + 1]) } + [ascii(leaf)])
    }

    public static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
