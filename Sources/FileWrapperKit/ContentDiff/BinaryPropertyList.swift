import Foundation

/// A reader of Apple's binary property lists (`bplist00`: objects, an
/// offset table, a 32-byte trailer) into ``StructuredValue``, kept apart
/// from Foundation's so that what a hostile list declares is checked
/// before anything is allocated for it: the trailer's sizes, counts and
/// offsets against the bytes, each object's length against the bytes
/// before the offset table. An object may be referred to from many places
/// (a list of 30 arrays, each naming the next twice, expands to 2³¹
/// values), so every value made is counted against the budget, and an
/// object that contains itself is refused rather than followed.
enum BinaryPropertyList {
    /// The value of the property list `bytes`; nil when it is not a
    /// well-formed `bplist00`; a refusal when it expands past the budget,
    /// nests too deep or refers to itself.
    static func parse(_ bytes: [UInt8], budget: inout StructuredValue.Budget) throws(StructuredValue.Refusal.Reason) -> StructuredValue? {
        guard let table = Table(bytes) else { return nil }
        var reader = Reader(bytes: bytes, table: table, expanding: Array(repeating: false, count: table.objectCount))
        return try reader.object(table.topObject, depth: 0, budget: &budget)
    }

    /// The trailer's facts, each checked against the bytes.
    private struct Table {
        let offsetSize: Int
        let referenceSize: Int
        let objectCount: Int
        let topObject: Int
        let tableOffset: Int

        static let header = Array("bplist00".utf8)
        static let trailerSize = 32

        init?(_ bytes: [UInt8]) {
            guard bytes.count >= Self.header.count + 1 + Self.trailerSize, bytes.starts(with: Self.header) else { return nil }
            let trailer = bytes.count - Self.trailerSize
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
                  let objects = Reader.integer(bytes, at: trailer + 8, size: 8),
                  let top = Reader.integer(bytes, at: trailer + 16, size: 8),
                  let table = Reader.integer(bytes, at: trailer + 24, size: 8),
                  // Numbers of 8 bytes come back only when they fit an Int.
                  objects > 0, top < objects, table >= Self.header.count + 1, table < trailer,
                  // The offset table lies between the objects and the trailer.
                  case (let tableSize, false) = objects.multipliedReportingOverflow(by: offsetSize), tableSize <= trailer - table,
                  // A reference can name every object.
                  referenceSize == 8 || objects <= 1 << (8 * referenceSize)
            else { return nil }
            objectCount = objects
            topObject = top
            tableOffset = table
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        let table: Table
        /// The objects being expanded now, from the top to here: one met
        /// again among them contains itself.
        var expanding: [Bool]

        /// The `size` bytes (at most 8) at `offset` as a big-endian number; nil past the end.
        static func bits(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64? {
            guard offset >= 0, size <= 8, size <= bytes.count, offset <= bytes.count - size else { return nil }
            return bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// ``bits(_:at:size:)`` as an `Int`; nil also when it does not fit one.
        static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
            bits(bytes, at: offset, size: size).flatMap { $0 <= UInt64(Int.max) ? Int($0) : nil }
        }

        /// Object `index`'s value.
        mutating func object(_ index: Int, depth: Int, budget: inout StructuredValue.Budget) throws(StructuredValue.Refusal.Reason) -> StructuredValue? {
            guard depth < StructuredValue.maxDepth else { throw .tooDeep(limit: StructuredValue.maxDepth) }
            guard !expanding[index] else { throw .cycle }
            try budget.spend()
            guard let start = Self.integer(bytes, at: table.tableOffset + index * table.offsetSize, size: table.offsetSize),
                  start >= Table.header.count, start < table.tableOffset else { return nil }
            let marker = bytes[start]
            let low = Int(marker & 0x0F)
            // What an object may use: the bytes from its start to the offset table.
            let end = table.tableOffset
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return .null
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: return nil
                }
            case 0x1:
                // 1, 2 and 4 bytes are unsigned, 8 signed, 16 an unsigned 64-bit number after 8 zero bytes.
                guard low <= 4, start + 1 + (1 << low) <= end else { return nil }
                let size = 1 << low
                if size == 16, bytes[(start + 1)..<(start + 9)].contains(where: { $0 != 0 }) { return nil }
                guard let value = Self.bits(bytes, at: start + 1 + max(0, size - 8), size: min(size, 8)) else { return nil }
                return size == 8 ? .number(Double(Int64(bitPattern: value)), text: String(Int64(bitPattern: value)))
                    : .number(Double(value), text: String(value))
            case 0x2:
                guard low == 2 || low == 3, start + 1 + (1 << low) <= end,
                      let bits = Self.bits(bytes, at: start + 1, size: 1 << low) else { return nil }
                let value = low == 2 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
                return .number(value, text: String(value))
            case 0x3:
                guard marker == 0x33, start + 9 <= end, let bits = Self.bits(bytes, at: start + 1, size: 8) else { return nil }
                return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
            case 0x4:
                guard let (first, count) = length(low, at: start, unit: 1, end: end) else { return nil }
                return .data(Data(bytes[first..<(first + count)]))
            case 0x5:
                guard let (first, count) = length(low, at: start, unit: 1, end: end),
                      bytes[first..<(first + count)].allSatisfy({ $0 < 0x80 }) else { return nil }
                return .string(Array(bytes[first..<(first + count)]))
            case 0x6:
                guard let (first, count) = length(low, at: start, unit: 2, end: end) else { return nil }
                let units = stride(from: first, to: first + count * 2, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
                return .string(Array(String(decoding: units, as: UTF16.self).utf8))
            case 0x8:
                // A keyed archiver's UID, as an XML property list writes it.
                guard low < 8, start + 2 + low <= end, let number = Self.integer(bytes, at: start + 1, size: low + 1) else { return nil }
                try budget.spend()
                return .object([(Array("CF$UID".utf8), .number(Double(number), text: String(number)))])
            case 0xA, 0xC:
                guard let (first, count) = length(low, at: start, unit: table.referenceSize, end: end) else { return nil }
                expanding[index] = true
                defer { expanding[index] = false }
                var elements: [StructuredValue] = []
                for position in 0..<count {
                    guard let element = try reference(at: first + position * table.referenceSize, depth: depth, budget: &budget) else { return nil }
                    elements.append(element)
                }
                return .array(elements)
            case 0xD:
                guard let (first, count) = length(low, at: start, unit: 2 * table.referenceSize, end: end) else { return nil }
                expanding[index] = true
                defer { expanding[index] = false }
                var members: [(key: [UInt8], value: StructuredValue)] = []
                for position in 0..<count {
                    guard case .string(let key)? = try reference(at: first + position * table.referenceSize, depth: depth, budget: &budget),
                          let value = try reference(at: first + (count + position) * table.referenceSize, depth: depth, budget: &budget)
                    else { return nil }
                    members.append((key, value))
                }
                return .object(members.sorted { $0.key.lexicographicallyPrecedes($1.key) })
            default:
                return nil
            }
        }

        /// The object the reference at `offset` names, one level down.
        private mutating func reference(at offset: Int, depth: Int, budget: inout StructuredValue.Budget) throws(StructuredValue.Refusal.Reason) -> StructuredValue? {
            guard let index = Self.integer(bytes, at: offset, size: table.referenceSize), index < table.objectCount else { return nil }
            return try object(index, depth: depth + 1, budget: &budget)
        }

        /// Where the contents of the object at `start` begin and how many
        /// units of `unit` bytes it has: `low` itself, or, when it is 15, the
        /// integer object that follows the marker. Nil unless they all lie
        /// before `end`.
        private func length(_ low: Int, at start: Int, unit: Int, end: Int) -> (first: Int, count: Int)? {
            var first = start + 1, count = low
            if low == 0x0F {
                guard first < end, bytes[first] >> 4 == 0x1, bytes[first] & 0x0F <= 3 else { return nil }
                let size = 1 << Int(bytes[first] & 0x0F)
                guard first + 1 + size <= end, let declared = Self.integer(bytes, at: first + 1, size: size) else { return nil }
                (first, count) = (first + 1 + size, declared)
            }
            guard case (let byteCount, false) = count.multipliedReportingOverflow(by: unit), byteCount <= end - first else { return nil }
            return (first, count)
        }
    }
}
