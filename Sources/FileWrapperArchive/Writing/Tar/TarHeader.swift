import FileWrapperKit

/// The blocks that start one member of a POSIX pax tar: a ustar header,
/// after an extended header (type `x`) with the records the ustar fields
/// cannot hold. As GNU tar and libarchive write them, except that a member
/// can be padded to start its data on a boundary (see ``blocks(for:at:aligningTo:)``).
enum TarHeader {
    /// Tar's unit: headers are one block, data is padded to whole blocks.
    static let blockSize = 512

    /// The header blocks of `header` for a member starting `offset` bytes
    /// into the archive (a multiple of ``blockSize``).
    ///
    /// With `alignment` (a multiple of ``blockSize``; for a regular file),
    /// the extended header gets a `comment` record long enough that the
    /// member's data starts at a multiple of it: a reader that copies data straight from the
    /// archive file then copies whole pages. Readers ignore comments.
    static func blocks(for header: ArchiveEntryHeader, at offset: UInt64, aligningTo alignment: Int? = nil) -> [UInt8] {
        var path = Array(header.path.utf8)
        if header.kind == .directory, path.last != UInt8(ascii: "/") { path.append(UInt8(ascii: "/")) }
        let target = header.linkTarget ?? []
        let owner = header.owner ?? FileOwner(userID: 0, groupID: 0)
        let split = ustarSplit(path)

        var records: [UInt8] = []
        if String(validating: target, as: UTF8.self) == nil {
            // Values are UTF-8 unless this says otherwise (POSIX pax).
            records += record("hdrcharset", Array("BINARY".utf8))
        }
        if split == nil { records += record("path", path) }
        if target.count > nameWidth || !isPortable(target) { records += record("linkpath", target) }
        if UInt64(header.size) > maxOctal(width: 12) { records += record("size", Array(String(header.size).utf8)) }
        if UInt64(owner.userID) > maxOctal(width: 8) { records += record("uid", Array(String(owner.userID).utf8)) }
        if UInt64(owner.groupID) > maxOctal(width: 8) { records += record("gid", Array(String(owner.groupID).utf8)) }
        let seconds = header.modified.seconds
        if header.modified.nanoseconds != 0 || seconds < 0 || UInt64(seconds) > maxOctal(width: 12) {
            records += record("mtime", Array(paxTime(header.modified).utf8))
        }

        if let alignment {
            records += padding(after: records, at: offset, alignment: alignment)
        }
        var blocks: [UInt8] = []
        if !records.isEmpty {
            let name = Array("PaxHeader/".utf8) + portableName(path.split(separator: UInt8(ascii: "/")).last ?? [])
            blocks += ustarBlock(
                name: (prefix: [], name: Array(name.prefix(nameWidth))), mode: 0o644, owner: owner, size: UInt64(records.count),
                mtime: header.modified, type: UInt8(ascii: "x"), linkName: [])
            blocks += records
            blocks += [UInt8](repeating: 0, count: paddingToBlock(records.count))
        }
        let type: UInt8 = switch header.kind {
        case .regularFile: UInt8(ascii: "0")
        case .directory: UInt8(ascii: "5")
        case .symbolicLink: UInt8(ascii: "2")
        }
        blocks += ustarBlock(
            name: split ?? (prefix: [], name: portableName(path.prefix(nameWidth))),
            mode: header.permissions & 0o7777, owner: owner, size: header.kind == .regularFile ? UInt64(header.size) : 0,
            mtime: header.modified, type: type, linkName: portableName(target.prefix(nameWidth)))
        return blocks
    }

    /// The zero bytes that fill a member of `size` bytes to whole blocks.
    static func paddingToBlock(_ size: Int) -> Int {
        (blockSize - size % blockSize) % blockSize
    }

    // MARK: - Extended records

    /// One extended record, `"LENGTH KEY=VALUE\n"`, where LENGTH counts the
    /// whole record, its own digits included.
    static func record(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let rest = key.utf8.count + value.count + 3  // " ", "=", "\n"
        var length = rest + String(rest).count
        if String(length).count > String(rest).count { length += 1 }
        return Array("\(length) \(key)=".utf8) + value + [UInt8(ascii: "\n")]
    }

    /// A `comment` record that takes the extended header to as many blocks
    /// as put the member's data on an `alignment` boundary; none if the
    /// data is there already.
    private static func padding(after records: [UInt8], at offset: UInt64, alignment: Int) -> [UInt8] {
        let block = UInt64(blockSize)
        func dataStart(extendedBlocks: Int) -> UInt64 {
            offset + (extendedBlocks > 0 ? block : 0) + UInt64(extendedBlocks) * block + block
        }
        let needed = (records.count + blockSize - 1) / blockSize
        if dataStart(extendedBlocks: needed) % UInt64(alignment) == 0 { return [] }
        // The shortest comment record, "12 comment=\n", is 12 bytes.
        var blocks = max(needed, 1)
        while blocks * blockSize - records.count < 12 || dataStart(extendedBlocks: blocks) % UInt64(alignment) != 0 {
            blocks += 1
        }
        return comment(length: blocks * blockSize - records.count)
    }

    /// A `comment` record of exactly `length` bytes (at least 12).
    private static func comment(length: Int) -> [UInt8] {
        let valueLength = length - String(length).count - " comment=\n".utf8.count
        let note = Array("aligns the data that follows".utf8)
        let value = valueLength >= note.count
            ? note + [UInt8](repeating: UInt8(ascii: " "), count: valueLength - note.count)
            : [UInt8](repeating: UInt8(ascii: " "), count: valueLength)
        return Array("\(length) comment=".utf8) + value + [UInt8(ascii: "\n")]
    }

    /// A time as POSIX pax writes it, a decimal number of seconds since
    /// 1970, with the nanoseconds as a fraction when there are any: 1.5 s
    /// before 1970 (-2 s and 500,000,000 ns) is `-1.5`, as GNU tar writes
    /// it and GNU tar, Python's tarfile and our reader (``PaxRawRecords``)
    /// read it. libarchive 3.6.2 writes `-2.5` and reads `-1.5` as -0.5 s.
    static func paxTime(_ time: FileTimestamp) -> String {
        guard time.nanoseconds != 0 else { return String(time.seconds) }
        let negative = time.seconds < 0
        var fraction = String(negative ? 1_000_000_000 - time.nanoseconds : time.nanoseconds)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return negative ? "-\(-(time.seconds + 1)).\(fraction)" : "\(time.seconds).\(fraction)"
    }

    // MARK: - The ustar block

    /// The width of ustar's name and link name fields.
    private static let nameWidth = 100
    /// The width of ustar's prefix field, which holds the directories of a
    /// path whose name alone does not fit.
    private static let prefixWidth = 155

    /// The path as ustar's prefix and name fields, or nil when it does not
    /// fit them or is not plain ASCII (then an extended record holds it).
    private static func ustarSplit(_ path: [UInt8]) -> (prefix: [UInt8], name: [UInt8])? {
        guard isPortable(path) else { return nil }
        if path.count <= nameWidth { return ([], path) }
        // The last slash that leaves a name that fits; a directory's own trailing slash does not count.
        let searched = path.last == UInt8(ascii: "/") ? path.dropLast() : path[...]
        guard let slash = searched.lastIndex(of: UInt8(ascii: "/")), slash <= prefixWidth,
              path.count - slash - 1 <= nameWidth, slash > 0
        else { return nil }
        return (Array(path[..<slash]), Array(path[(slash + 1)...]))
    }

    /// Whether every byte is printable ASCII, which any tar reader takes as it is.
    private static func isPortable(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy { (0x20..<0x7F).contains($0) }
    }

    /// The bytes with anything but printable ASCII as `_`: the ustar
    /// field's stand-in when an extended record holds the real value.
    private static func portableName(_ bytes: some Collection<UInt8>) -> [UInt8] {
        bytes.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "_") }
    }

    /// The largest number an octal field of `width` bytes holds (its last byte is a NUL).
    private static func maxOctal(width: Int) -> UInt64 { (1 << (3 * UInt64(width - 1))) - 1 }

    private static func ustarBlock(
        name: (prefix: [UInt8], name: [UInt8]), mode: UInt16, owner: FileOwner, size: UInt64,
        mtime: FileTimestamp, type: UInt8, linkName: [UInt8]
    ) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ bytes: [UInt8], at offset: Int) {
            block.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        }
        /// A number in octal, zero-filled to the field's width less its NUL; too large a value is clamped (an extended record holds it).
        func octal(_ value: UInt64, at offset: Int, width: Int) {
            let digits = String(min(value, maxOctal(width: width)), radix: 8)
            put(Array((String(repeating: "0", count: width - 1 - digits.count) + digits).utf8), at: offset)
        }
        put(name.name, at: 0)
        octal(UInt64(mode), at: 100, width: 8)
        octal(UInt64(owner.userID), at: 108, width: 8)
        octal(UInt64(owner.groupID), at: 116, width: 8)
        octal(size, at: 124, width: 12)
        octal(UInt64(max(0, mtime.seconds)), at: 136, width: 12)
        block[156] = type
        put(linkName, at: 157)
        put(Array("ustar\0".utf8) + Array("00".utf8), at: 257)
        octal(0, at: 329, width: 8)  // device major
        octal(0, at: 337, width: 8)  // device minor
        put(name.prefix, at: 345)
        // The checksum is the sum of the block's bytes with its own field as spaces.
        put([UInt8](repeating: UInt8(ascii: " "), count: 8), at: 148)
        let checksum = block.reduce(0) { $0 + Int($1) }
        octal(UInt64(checksum), at: 148, width: 7)
        block[154] = 0  // six digits, a NUL, a space
        return block
    }
}
