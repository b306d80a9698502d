/// Little-endian fields appended in order, as zip records are laid out,
/// each call naming its fields' width: how every zip record is encoded.
struct ZipBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ fields: UInt8...) { bytes += fields }
    mutating func u16(_ fields: UInt16...) { append(fields) }
    mutating func u32(_ fields: UInt32...) { append(fields) }
    mutating func u64(_ fields: UInt64...) { append(fields) }
    mutating func u64(_ fields: [UInt64]) { append(fields) }
    mutating func bytes(_ field: some Collection<UInt8>) { bytes += field }

    private mutating func append<Field: FixedWidthInteger>(_ fields: [Field]) {
        for field in fields {
            withUnsafeBytes(of: field.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }
}
