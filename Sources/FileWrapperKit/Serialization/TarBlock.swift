/// One 512-byte tar header block as POSIX ustar and GNU tar lay it out: the
/// fields' places, read in place from an archive's bytes (FileWrapperArchive's
/// `PlainTarReader` and `PaxRawRecords`, and ``SerializedTar``, the tar that
/// `serializedRepresentation` wrote before it wrote Apple's format) and
/// written for ours (FileWrapperArchive's `TarHeader`), in one place. Here,
/// not in FileWrapperArchive, so that reading that old tar needs no libarchive.
package struct TarBlock {
    /// Tar's unit: headers are one block, data is padded to whole blocks.
    package static let size = 512

    /// A field's place in the block.
    package struct Field {
        package let offset: Int
        package let width: Int
    }

    package static let name = Field(offset: 0, width: 100)
    package static let mode = Field(offset: 100, width: 8)
    package static let user = Field(offset: 108, width: 8)
    package static let group = Field(offset: 116, width: 8)
    package static let contentSize = Field(offset: 124, width: 12)
    package static let modified = Field(offset: 136, width: 12)
    package static let checksum = Field(offset: 148, width: 8)
    package static let typeOffset = 156
    package static let linkName = Field(offset: 157, width: 100)
    /// The magic and version: `"ustar\0"` `"00"` (POSIX) or `"ustar  \0"` (GNU).
    package static let magic = Field(offset: 257, width: 8)
    package static let userName = Field(offset: 265, width: 32)
    package static let groupName = Field(offset: 297, width: 32)
    package static let deviceMajor = Field(offset: 329, width: 8)
    package static let deviceMinor = Field(offset: 337, width: 8)
    /// POSIX's prefix: the directories of a path whose name alone does not fit.
    package static let prefix = Field(offset: 345, width: 155)
    /// GNU tar's sparse and multi-volume fields, which overlap POSIX's prefix.
    package static let gnuExtensionOffsets = [386, 482, 483]

    private static let posixMagic = Array("ustar\u{0}00".utf8)
    private static let gnuMagic = Array("ustar  \u{0}".utf8)

    /// The block's bytes, read in place.
    package let bytes: UnsafeRawBufferPointer

    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The zero bytes that fill `size` bytes of data to whole blocks.
    package static func padding(after size: Int64) -> Int64 {
        (Int64(Self.size) - size % Int64(Self.size)) % Int64(Self.size)
    }

    // MARK: - Reading

    package var type: UInt8 { bytes[Self.typeOffset] }

    package var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    package var isGNU: Bool { field(Self.magic).elementsEqual(Self.gnuMagic) }
    package var isPOSIX: Bool { field(Self.magic).elementsEqual(Self.posixMagic) }

    /// Whether a GNU header uses its sparse or multi-volume fields, with
    /// which libarchive reads more than the header says.
    package var hasGNUExtensions: Bool { isGNU && Self.gnuExtensionOffsets.contains { bytes[$0] != 0 } }

    /// Whether it has either magic and its checksum is the unsigned sum
    /// of its bytes, the checksum field counted as spaces. The field
    /// holds octal digits, spaces and NULs only (not base-256), as
    /// libarchive requires.
    package var isValid: Bool {
        guard isGNU || isPOSIX,
              field(Self.checksum).allSatisfy({ $0 == 0 || $0 == UInt8(ascii: " ") || (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }),
              let recorded = number(Self.checksum)
        else { return false }
        return Self.sum(of: bytes) == recorded
    }

    /// Whether libarchive takes a file that starts with this header for
    /// a tar: it does when the number fields are octal or base-256.
    package var isTarToLibarchive: Bool {
        [Self.mode, Self.user, Self.group, Self.contentSize, Self.modified, Self.deviceMajor, Self.deviceMinor]
            .allSatisfy { number($0) != nil }
    }

    private func field(_ field: Field) -> Slice<UnsafeRawBufferPointer> {
        bytes[field.offset..<(field.offset + field.width)]
    }

    /// The field up to its first NUL.
    package func text(_ field: Field) -> ArraySlice<UInt8> {
        Array(self.field(field).prefix { $0 != 0 })[...]
    }

    /// A number field: octal digits after optional spaces, ended by NULs
    /// or spaces; or, with its first byte 0x80, a positive base-256
    /// number (GNU tar's form for large values); nil when malformed or
    /// too large.
    package func number(_ field: Field) -> Int64? {
        let bytes = self.field(field)
        if bytes.first == 0x80 {
            var value: Int64 = 0
            for byte in bytes.dropFirst() {
                guard value <= (Int64.max >> 8) else { return nil }
                value = value << 8 | Int64(byte)
            }
            return value
        }
        var value: Int64 = 0
        var index = bytes.startIndex
        while index < bytes.endIndex, bytes[index] == UInt8(ascii: " ") { index += 1 }
        while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[index]) {
            value = value * 8 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        return bytes[index...].allSatisfy({ $0 == 0 || $0 == UInt8(ascii: " ") }) ? value : nil
    }

    // MARK: - Writing

    /// A POSIX ustar block with these fields. Names are written as given
    /// (the caller fits them to their fields); a number too large for its
    /// octal field is clamped, for an extended record holds it.
    package static func encoded(
        name: (prefix: [UInt8], name: [UInt8]), mode: UInt16, owner: FileOwner, size: UInt64,
        modified: FileTimestamp, type: UInt8, linkName: [UInt8]
    ) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: Self.size)
        func put(_ bytes: [UInt8], at field: Field) {
            block.replaceSubrange(field.offset..<(field.offset + bytes.count), with: bytes)
        }
        /// Octal, zero-filled to the field's width less its NUL.
        func octal(_ value: UInt64, at field: Field) {
            let digits = String(min(value, maxOctal(width: field.width)), radix: 8)
            put(Array((String(repeating: "0", count: field.width - 1 - digits.count) + digits).utf8), at: field)
        }
        put(name.name, at: Self.name)
        octal(UInt64(mode), at: Self.mode)
        octal(UInt64(owner.userID), at: Self.user)
        octal(UInt64(owner.groupID), at: Self.group)
        octal(size, at: Self.contentSize)
        octal(UInt64(max(0, modified.seconds)), at: Self.modified)
        block[Self.typeOffset] = type
        put(linkName, at: Self.linkName)
        put(posixMagic, at: Self.magic)
        octal(0, at: Self.deviceMajor)
        octal(0, at: Self.deviceMinor)
        put(name.prefix, at: Self.prefix)
        // Six digits, a NUL and a space.
        let digits = String(block.withUnsafeBytes { Self.sum(of: $0) }, radix: 8)
        put(Array((String(repeating: "0", count: 6 - digits.count) + digits).utf8) + [0, UInt8(ascii: " ")], at: Self.checksum)
        return block
    }

    /// Whether `value` fits `field` in octal, or needs an extended record.
    package static func holds(_ value: UInt64, in field: Field) -> Bool {
        value <= maxOctal(width: field.width)
    }

    /// The largest number an octal field of `width` bytes holds (its last byte is a NUL).
    private static func maxOctal(width: Int) -> UInt64 { (1 << (3 * UInt64(width - 1))) - 1 }

    /// The sum of a block's bytes, with its checksum field counted as spaces.
    private static func sum(of block: UnsafeRawBufferPointer) -> Int64 {
        var sum: Int64 = 0
        for byte in block { sum += Int64(byte) }
        for byte in block[checksum.offset..<(checksum.offset + checksum.width)] { sum -= Int64(byte) }
        return sum + Int64(checksum.width) * Int64(UInt8(ascii: " "))
    }
}
