/// Apple's serialization of a file wrapper, the "flat RTFD" of
/// `-[NSFileWrapper serializedRepresentation]`, `com.apple.flat-rtfd` and
/// `NSRTFDPboardType`: the stream's layout, in one place for the reader
/// (``FlatRTFDReader``) and the writer (``FlatRTFDWriter``).
///
/// A blob is the header `"rtfd"` and a version of 0, then one object. Every
/// integer is a little-endian `UInt32`. An object is a tag and a body: tag 1
/// data (`sized`), tag 3 a dictionary (a count, then every key as `sized`
/// UTF-8, then every value's length with its tag, then every value). A
/// `sized` field is a size and its bytes, or, to start the bytes on a page
/// boundary, ``alignedMarker``, the size, a pad count and that many zeros
/// first. A directory's dictionary holds its children under their keys and,
/// when it has any, `"."`: data that is a stream of its own, the directory
/// info (a count, keys, lengths of 16, then per child its modification
/// time, permissions, kind and a leaf flag, untagged).
package enum FlatRTFD {
    /// The header: `"rtfd"`, then version 0.
    static let header: [UInt8] = Array("rtfd".utf8) + [0, 0, 0, 0]
    static let dataTag: UInt32 = 1
    static let dictionaryTag: UInt32 = 3
    /// Written before a size whose bytes are padded to a page boundary.
    static let alignedMarker: UInt32 = 0x8000_0000
    /// The page our writer aligns to, as Intel Macs write; Apple's reader takes any.
    static let pageSize = 4096
    /// The largest size, count or length Apple's writer writes and its
    /// reader takes (they are signed there).
    static let largestValue = Int(Int32.max)

    /// The key of a directory's info.
    package static let directoryInfoKey: [UInt8] = Array(".".utf8)
    /// The key of a top-level regular file or link (then the whole blob's one entry with "." and the name keys).
    package static let leafKey: [UInt8] = Array("..".utf8)
    /// The top level's preferred filename in NeXTSTEP encoding, and in UTF-8.
    static let preferredNameKey: [UInt8] = Array("__@PreferredName@__".utf8)
    static let utf8PreferredNameKey: [UInt8] = Array("__@UTF8PreferredName@__".utf8)
    /// What Foundation puts before a child's preferred filename to make its key unique.
    static let uniqueSeparator: [UInt8] = Array("__#$!@%!#__".utf8)

    /// Kinds in the directory info (bits 0 and 2; bit 1, set on a top-level leaf, is ignored).
    package static let directoryKind: UInt32 = 1
    package static let linkKind: UInt32 = 4
    static let topLeafFlag: UInt32 = 2
    /// The size of one entry of the directory info.
    static let infoSize = 16

    /// Whether `data` starts with the header, as Apple's reader decides it
    /// (`"rtfd"` and a zero byte); a blob without it is read as a stream
    /// all the same.
    package static func hasHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 5 && bytes.prefix(4).elementsEqual(header.prefix(4)) && bytes[4] == 0
    }
}

/// A value of the stream, read in place: where its bytes are in the input.
package enum FlatRTFDValue {
    /// Tag 1: the range of the data's bytes.
    case data(Range<Int>)
    /// Tag 3: the index of its entries in ``FlatRTFDStream/dictionaries``.
    case dictionary(Int)
}

/// A stream's dictionaries, each a list of entries in the order stored,
/// side by side rather than nested, so that neither reading nor freeing
/// them recurses however deep they nest.
package struct FlatRTFDStream {
    package var dictionaries: [[FlatRTFDEntry]]
    /// The index of the top dictionary.
    package var top: Int
}

/// One entry of a dictionary.
package struct FlatRTFDEntry {
    /// The range of the key's bytes.
    package var key: Range<Int>
    /// The length the stream declares for the value, tag included. Apple's
    /// reader does not use it and neither does ours.
    package var declaredLength: UInt32
    package var value: FlatRTFDValue
}

/// One entry of a directory's info: a child's metadata.
package struct FlatRTFDInfo: Equatable {
    /// Whole seconds since 1970, read back sign-extended.
    package var modified: UInt32
    package var mode: UInt32
    package var kind: UInt32
    package var leaf: UInt32

    /// The bytes of the entry, each field little-endian.
    var bytes: [UInt8] {
        [modified, mode, kind, leaf].flatMap(FlatRTFDOutput.littleEndian)
    }
}
