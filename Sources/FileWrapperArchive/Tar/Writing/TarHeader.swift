import FileWrapperKit

/// The blocks that start one member of a POSIX pax tar: a ustar header,
/// after an extended header (type `x`) with the records the ustar fields
/// cannot hold. As GNU tar and libarchive write them, except that a member
/// can be padded to start its data on a boundary (see ``blocks(for:at:aligningTo:)``).
enum TarHeader {
    /// The header blocks of `header` for a member starting `offset` bytes
    /// into the archive (a multiple of ``TarBlock/size``).
    ///
    /// With `alignment` (a multiple of ``TarBlock/size``; for a regular file),
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
            records += PaxRecord.encoded("hdrcharset", Array("BINARY".utf8))
        }
        if split == nil { records += PaxRecord.encoded("path", path) }
        if target.count > nameWidth || !isPortable(target) { records += PaxRecord.encoded("linkpath", target) }
        if !TarBlock.holds(UInt64(header.size), in: TarBlock.contentSize) { records += PaxRecord.encoded("size", Array(String(header.size).utf8)) }
        if !TarBlock.holds(UInt64(owner.userID), in: TarBlock.user) { records += PaxRecord.encoded("uid", Array(String(owner.userID).utf8)) }
        if !TarBlock.holds(UInt64(owner.groupID), in: TarBlock.group) { records += PaxRecord.encoded("gid", Array(String(owner.groupID).utf8)) }
        let seconds = header.modified.seconds
        if header.modified.nanoseconds != 0 || seconds < 0 || !TarBlock.holds(UInt64(seconds), in: TarBlock.modified) {
            records += PaxRecord.encoded("mtime", Array(PaxRecord.text(header.modified).utf8))
        }

        if let alignment {
            records += padding(after: records, at: offset, alignment: alignment)
        }
        var blocks: [UInt8] = []
        if !records.isEmpty {
            let name = Array("PaxHeader/".utf8) + portableName(path.split(separator: UInt8(ascii: "/")).last ?? [])
            blocks += TarBlock.encoded(
                name: (prefix: [], name: Array(name.prefix(nameWidth))), mode: 0o644, owner: owner, size: UInt64(records.count),
                modified: header.modified, type: UInt8(ascii: "x"), linkName: [])
            blocks += records
            blocks += [UInt8](repeating: 0, count: Int(TarBlock.padding(after: Int64(records.count))))
        }
        let type: UInt8 = switch header.kind {
        case .regularFile: UInt8(ascii: "0")
        case .directory: UInt8(ascii: "5")
        case .symbolicLink: UInt8(ascii: "2")
        }
        blocks += TarBlock.encoded(
            name: split ?? (prefix: [], name: portableName(path.prefix(nameWidth))),
            mode: header.permissions & 0o7777, owner: owner, size: header.kind == .regularFile ? UInt64(header.size) : 0,
            modified: header.modified, type: type, linkName: portableName(target.prefix(nameWidth)))
        return blocks
    }

    // MARK: - Extended records

    /// A `comment` record that takes the extended header to as many blocks
    /// as put the member's data on an `alignment` boundary; none if the
    /// data is there already.
    private static func padding(after records: [UInt8], at offset: UInt64, alignment: Int) -> [UInt8] {
        let block = UInt64(TarBlock.size)
        func dataStart(extendedBlocks: Int) -> UInt64 {
            offset + (extendedBlocks > 0 ? block : 0) + UInt64(extendedBlocks) * block + block
        }
        let needed = (records.count + TarBlock.size - 1) / TarBlock.size
        if dataStart(extendedBlocks: needed) % UInt64(alignment) == 0 { return [] }
        // The shortest comment record, "12 comment=\n", is 12 bytes.
        var blocks = max(needed, 1)
        while blocks * TarBlock.size - records.count < 12 || dataStart(extendedBlocks: blocks) % UInt64(alignment) != 0 {
            blocks += 1
        }
        return comment(length: blocks * TarBlock.size - records.count)
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

    // MARK: - The ustar block

    private static let nameWidth = TarBlock.name.width
    private static let prefixWidth = TarBlock.prefix.width

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
}
