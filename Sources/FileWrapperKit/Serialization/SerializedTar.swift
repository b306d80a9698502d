import Foundation

/// Reads the tar that `serializedRepresentation` wrote before it wrote
/// Apple's format: a POSIX pax tar of regular files, directories and
/// symbolic links whose one top-level entry is the wrapper (named by its
/// preferred filename), as FileWrapperArchive's tar writer and, before it,
/// libarchive's wrote it. Ustar headers and `x` extended headers (`path`,
/// `linkpath`, `size`, `mtime`, `uid`, `gid`; other records ignored), no
/// more: anything else gives nil. Here rather than through libarchive so
/// that `FileWrapper(serializedRepresentation:)` needs FileWrapperKit
/// alone.
enum SerializedTar {
    /// Whether `bytes` start with a ustar header whose checksum is right.
    static func isTar(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= TarBlock.size && TarBlock(UnsafeRawBufferPointer(rebasing: bytes[0..<TarBlock.size])).isValid
    }

    /// The wrapper the tar `bytes` holds: its one top-level entry with its
    /// name as preferred filename, or a directory of its top-level entries
    /// if there are several; nil if it is not such a tar.
    static func fileWrapper(from bytes: UnsafeRawBufferPointer) -> FileWrapper? {
        let root = FileWrapper(kind: .directory)
        var offset = 0
        var extended: [String: ArraySlice<UInt8>] = [:]
        while true {
            guard bytes.count - offset >= TarBlock.size else { return nil }
            let block = TarBlock(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + TarBlock.size)]))
            if block.isZero { break }
            guard block.isValid, var size = block.number(TarBlock.contentSize) else { return nil }
            if let recorded = extended["size"] {
                guard let value = Int64(decimal: recorded) else { return nil }
                size = value
            }
            let start = offset + TarBlock.size
            guard size <= Int64(bytes.count - start) else { return nil }
            let contents = start..<(start + Int(size))
            offset = contents.upperBound + Int(TarBlock.padding(after: size))
            switch block.type {
            case UInt8(ascii: "x"):
                let (records, wellFormed) = PaxRecord.parse(Array(bytes[contents]))
                guard wellFormed else { return nil }
                for record in records {
                    extended[String(decoding: record.key, as: UTF8.self)] = record.value
                }
                continue
            case UInt8(ascii: "0"), 0, UInt8(ascii: "5"), UInt8(ascii: "2"):
                guard add(block, contents: contents, extended: extended, to: root, in: bytes) else { return nil }
                extended = [:]
            default:
                return nil
            }
        }
        guard root.children.count == 1, let (name, top) = root.children.first.map({ ($0.key, $0.value) }) else { return root }
        top.removeParent(root)
        top.adoptName(nil, preferred: name)
        return top
    }

    /// Adds the entry of `block` under its path, making the directories
    /// above it that the tar does not list; false if it cannot be placed.
    private static func add(
        _ block: TarBlock, contents: Range<Int>, extended: [String: ArraySlice<UInt8>], to root: FileWrapper,
        in bytes: UnsafeRawBufferPointer
    ) -> Bool {
        var path = extended["path"].map(Array.init) ?? Array(block.text(TarBlock.name))
        if extended["path"] == nil, case let prefix = block.text(TarBlock.prefix), !prefix.isEmpty {
            path = Array(prefix) + [UInt8(ascii: "/")] + path
        }
        var names: [String] = []
        for component in path.split(separator: UInt8(ascii: "/")) where component != [UInt8(ascii: ".")] {
            guard FlatRTFDReader.isFileName(Array(component)), let name = String(validating: component, as: UTF8.self) else { return false }
            names.append(name)
        }
        guard let last = names.popLast(), let mode = block.number(TarBlock.mode) else { return false }
        var parent = root
        for name in names {
            if let existing = parent.children[name] {
                guard existing.isDirectory else { return false }
                parent = existing
            } else {
                let directory = FileWrapper(kind: .directory)
                directory.adoptName(name)
                parent.children[name] = directory
                directory.addParent(parent)
                parent = directory
            }
        }

        let wrapper: FileWrapper
        switch block.type {
        case UInt8(ascii: "5"):
            if let existing = parent.children[last] {
                guard existing.isDirectory else { return false }
                wrapper = existing
            } else {
                wrapper = FileWrapper(kind: .directory)
            }
        case UInt8(ascii: "2"):
            guard parent.children[last] == nil else { return false }
            wrapper = FileWrapper(symbolicLinkWithDestinationBytes: extended["linkpath"].map(Array.init) ?? Array(block.text(TarBlock.linkName)))
        default:
            guard parent.children[last] == nil else { return false }
            let data = contents.isEmpty ? Data() : Data(bytes: bytes.baseAddress! + contents.lowerBound, count: contents.count)
            wrapper = FileWrapper(regularFileWithContents: data)
        }
        wrapper.attributes.permissions = UInt16(truncatingIfNeeded: mode) & 0o7777
        if let recorded = extended["mtime"] {
            guard let time = PaxRecord.time(recorded) else { return false }
            wrapper.attributes.modificationDate = FileTimestamp(seconds: time.seconds, nanoseconds: time.nanoseconds)
        } else if let seconds = block.number(TarBlock.modified) {
            wrapper.attributes.modificationDate = FileTimestamp(seconds: seconds)
        }
        func number(_ key: String, _ field: TarBlock.Field) -> UInt32? {
            let value = if let recorded = extended[key] { Int64(decimal: recorded) } else { block.number(field) }
            return value.flatMap { UInt32(exactly: $0) }
        }
        guard let userID = number("uid", TarBlock.user), let groupID = number("gid", TarBlock.group) else { return false }
        wrapper.attributes.owner = FileOwner(userID: userID, groupID: groupID)
        if parent.children[last] == nil {
            wrapper.adoptName(last)
            parent.children[last] = wrapper
            wrapper.addParent(parent)
        }
        return true
    }
}
