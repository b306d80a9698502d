/// Reads Apple's serialized file wrapper (``FlatRTFD``) into values that
/// point into the input, checking every size and count against the bytes
/// that remain before it stores anything, so that malformed input gives
/// nil, never a trap, and memory stays within a small multiple of the
/// input (each entry takes at least 16 bytes of it); no nesting is too deep.
///
/// Apple's reading rules: the header is optional (without `"rtfd"` and a
/// zero byte the whole blob is the stream); a version other than 0 is
/// refused; the top object is a dictionary; tags other than data and
/// dictionary are refused; the declared lengths are read, not used.
package struct FlatRTFDReader {
    private let bytes: UnsafeRawBufferPointer
    private var position: Int
    private let end: Int

    /// A reader of the stream in `bytes[range]`.
    private init(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    /// The dictionaries of the blob `bytes`, or nil if it is not a
    /// well-formed stream whose top object is a dictionary. Bytes after the
    /// top object are not read, as Apple's reader does not read them.
    package static func stream(of bytes: UnsafeRawBufferPointer) -> FlatRTFDStream? {
        guard bytes.count >= FlatRTFD.header.count else { return nil }
        var start = 0
        if FlatRTFD.hasHeader(bytes) {
            guard bytes[4..<8].allSatisfy({ $0 == 0 }) else { return nil }
            start = FlatRTFD.header.count
        }
        var reader = FlatRTFDReader(bytes, start..<bytes.count)
        guard reader.u32() == FlatRTFD.dictionaryTag else { return nil }
        return reader.dictionary()
    }

    /// The entries of a directory info, the data at `range`, by key bytes;
    /// nil if it is malformed or names a child twice.
    package static func directoryInfo(in bytes: UnsafeRawBufferPointer, at range: Range<Int>) -> [[UInt8]: FlatRTFDInfo]? {
        var reader = FlatRTFDReader(bytes, range)
        guard let count = reader.count(minimumBytesEach: 4 + 4 + FlatRTFD.infoSize) else { return nil }
        var keys: [Range<Int>] = []
        keys.reserveCapacity(count)
        for _ in 0..<count {
            guard let key = reader.sized() else { return nil }
            keys.append(key)
        }
        for _ in 0..<count {
            guard reader.u32() != nil else { return nil }
        }
        var info: [[UInt8]: FlatRTFDInfo] = [:]
        info.reserveCapacity(count)
        for key in keys {
            guard let modified = reader.u32(), let mode = reader.u32(), let kind = reader.u32(), let leaf = reader.u32(),
                  info.updateValue(FlatRTFDInfo(modified: modified, mode: mode, kind: kind, leaf: leaf), forKey: Array(bytes[key])) == nil
            else { return nil }
        }
        return info
    }

    // MARK: - Objects

    /// A dictionary being read: its keys and declared lengths, and the
    /// entries whose values are read so far.
    private struct OpenDictionary {
        var keys: [Range<Int>]
        var lengths: [UInt32]
        var entries: [FlatRTFDEntry]

        var isComplete: Bool { entries.count == keys.count }

        mutating func add(_ value: FlatRTFDValue) {
            entries.append(FlatRTFDEntry(key: keys[entries.count], declaredLength: lengths[entries.count], value: value))
        }
    }

    /// A dictionary's body, after its tag, and every dictionary inside it:
    /// with a stack of those being read rather than recursion, so that no
    /// nesting can exhaust the thread's stack.
    private mutating func dictionary() -> FlatRTFDStream? {
        guard var current = dictionaryHead() else { return nil }
        var enclosing: [OpenDictionary] = []
        var dictionaries: [[FlatRTFDEntry]] = []
        while true {
            if current.isComplete {
                dictionaries.append(current.entries)
                guard var parent = enclosing.popLast() else { return FlatRTFDStream(dictionaries: dictionaries, top: dictionaries.count - 1) }
                parent.add(.dictionary(dictionaries.count - 1))
                current = parent
                continue
            }
            switch u32() {
            case FlatRTFD.dataTag:
                guard let range = sized() else { return nil }
                current.add(.data(range))
            case FlatRTFD.dictionaryTag:
                guard let inner = dictionaryHead() else { return nil }
                enclosing.append(current)
                current = inner
            default:
                return nil
            }
        }
    }

    /// A dictionary's count, keys and lengths.
    private mutating func dictionaryHead() -> OpenDictionary? {
        // A key (4 bytes at least), a length (4) and a tagged value (8).
        guard let count = count(minimumBytesEach: 16) else { return nil }
        var keys: [Range<Int>] = []
        keys.reserveCapacity(count)
        for _ in 0..<count {
            guard let key = sized() else { return nil }
            keys.append(key)
        }
        var lengths: [UInt32] = []
        lengths.reserveCapacity(count)
        for _ in 0..<count {
            guard let length = u32() else { return nil }
            lengths.append(length)
        }
        var entries: [FlatRTFDEntry] = []
        entries.reserveCapacity(count)
        return OpenDictionary(keys: keys, lengths: lengths, entries: entries)
    }

    // MARK: - Fields

    private var remaining: Int { end - position }

    private mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        let value = UInt32(bytes[position]) | UInt32(bytes[position + 1]) << 8
            | UInt32(bytes[position + 2]) << 16 | UInt32(bytes[position + 3]) << 24
        position += 4
        return value
    }

    /// A size or count, which Apple's reader takes as signed.
    private mutating func signed() -> Int? {
        guard let value = u32(), value <= UInt32(FlatRTFD.largestValue) else { return nil }
        return Int(value)
    }

    /// A count of items of at least `minimumBytesEach` bytes each, which
    /// the bytes that remain must be able to hold.
    private mutating func count(minimumBytesEach: Int) -> Int? {
        guard let count = signed(), count <= remaining / minimumBytesEach else { return nil }
        return count
    }

    /// A size and its bytes, plain or page-aligned: the range of the bytes.
    private mutating func sized() -> Range<Int>? {
        guard let first = u32() else { return nil }
        var size: Int
        if first == FlatRTFD.alignedMarker {
            guard let alignedSize = signed(), let pad = signed(), pad <= remaining else { return nil }
            position += pad
            size = alignedSize
        } else {
            guard first <= UInt32(FlatRTFD.largestValue) else { return nil }
            size = Int(first)
        }
        guard size <= remaining else { return nil }
        defer { position += size }
        return position..<(position + size)
    }
}
