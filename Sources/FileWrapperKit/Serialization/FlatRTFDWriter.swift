import Foundation

/// Writes a wrapper as Apple's serialized file wrapper (``FlatRTFD``), as
/// `-[NSFileWrapper serializedRepresentation]` writes it, but the same bytes
/// every time: keys in byte order (Apple's follow its hash order) and the
/// bytes of data of a page or more on a 4 KiB boundary of the blob (Apple
/// aligns to its writing process's page, 16 KiB on Apple silicon).
///
/// Nil where Apple's writer fails or its reader would read another tree:
/// a value (a file, a directory's whole subtree) over 2 GiB - 1, a
/// modification time before 1970 or after 2038-01-19 03:14:07 UTC, a
/// symbolic link whose target is not UTF-8, a child keyed `.`, `..` or
/// with `/` or NUL in its key, a top-level child keyed as one of the two
/// preferred-name keys, and a file whose contents cannot be read.
package struct FlatRTFDWriter {
    /// Why writing stops; the caller gets nil.
    struct Unwritable: Error {}

    /// What a dictionary holds under a key: a wrapper, or data of our own.
    private enum Item {
        case wrapper(FileWrapper)
        case bytes([UInt8])
    }

    private var output: FlatRTFDOutput

    /// The serialization of `wrapper`; `largestValue` lowered only by tests.
    package static func data(for wrapper: FileWrapper, largestValue: Int = FlatRTFD.largestValue) -> Data? {
        guard let size = estimatedSize(of: wrapper, largestValue: largestValue) else { return nil }
        var writer = FlatRTFDWriter(output: FlatRTFDOutput(largestValue: largestValue, capacity: size))
        writer.output.append(FlatRTFD.header)
        do {
            try writer.dictionary(topEntries(of: wrapper))
        } catch {
            return nil
        }
        return writer.output.data
    }

    /// The top dictionary: a directory's children, or a file or link under
    /// `".."`, then the preferred name in both encodings.
    private static func topEntries(of wrapper: FileWrapper) throws(Unwritable) -> [(key: [UInt8], item: Item)] {
        var entries: [(key: [UInt8], item: Item)]
        if wrapper.isDirectory {
            entries = try childEntries(of: wrapper)
            guard !entries.contains(where: { $0.key == FlatRTFD.preferredNameKey || $0.key == FlatRTFD.utf8PreferredNameKey }) else {
                throw Unwritable()
            }
        } else {
            var info = try info(of: wrapper)
            info.modified = 0
            info.kind |= FlatRTFD.topLeafFlag
            info.leaf = 1
            entries = [(FlatRTFD.leafKey, .wrapper(wrapper)), (FlatRTFD.directoryInfoKey, .bytes(try directoryInfo([(FlatRTFD.leafKey, info)])))]
        }
        if let name = wrapper.preferredFilename {
            let nextstep = name.data(using: .nextstep, allowLossyConversion: true) ?? Data()
            entries.append((FlatRTFD.preferredNameKey, .bytes(Array(nextstep))))
            entries.append((FlatRTFD.utf8PreferredNameKey, .bytes(Array(name.utf8))))
        }
        return entries
    }

    /// A directory's children under their keys, and `"."` when it has any.
    private static func childEntries(of directory: FileWrapper) throws(Unwritable) -> [(key: [UInt8], item: Item)] {
        var entries: [(key: [UInt8], item: Item)] = []
        var infos: [(key: [UInt8], info: FlatRTFDInfo)] = []
        for (key, child) in directory.children {
            let bytes = Array(key.utf8)
            guard FlatRTFDReader.isFileName(bytes) else { throw Unwritable() }
            entries.append((bytes, .wrapper(child)))
            infos.append((bytes, try info(of: child)))
        }
        if !infos.isEmpty {
            entries.append((FlatRTFD.directoryInfoKey, .bytes(try directoryInfo(infos))))
        }
        return entries
    }

    /// A wrapper's entry in its directory's info: the modification time in
    /// whole seconds (a `Date`'s, cut toward zero; 0 when there is none),
    /// the permissions as `fileAttributes` gives them, the kind.
    private static func info(of wrapper: FileWrapper) throws(Unwritable) -> FlatRTFDInfo {
        var seconds: Int64 = 0
        if let date = wrapper.attributes.modificationDate {
            seconds = date.seconds < 0 && date.nanoseconds > 0 ? date.seconds + 1 : date.seconds
        }
        guard (0...Int64(Int32.max)).contains(seconds) else { throw Unwritable() }
        let kind: UInt32 = wrapper.isDirectory ? FlatRTFD.directoryKind : wrapper.isSymbolicLink ? FlatRTFD.linkKind : 0
        return FlatRTFDInfo(modified: UInt32(seconds), mode: UInt32(wrapper.attributes.permissions ?? wrapper.defaultPermissions), kind: kind, leaf: 0)
    }

    /// The bytes of a directory info: a stream of its own, aligned from its own start.
    private static func directoryInfo(_ infos: [(key: [UInt8], info: FlatRTFDInfo)]) throws(Unwritable) -> [UInt8] {
        let sorted = infos.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        var stream = FlatRTFDOutput(largestValue: FlatRTFD.largestValue, capacity: sorted.count * 64)
        stream.u32(UInt32(sorted.count))
        for entry in sorted { try stream.sized(entry.key) }
        for _ in sorted { stream.u32(UInt32(FlatRTFD.infoSize)) }
        for entry in sorted { stream.append(entry.info.bytes) }
        return Array(stream.data)
    }

    // MARK: - Objects

    /// A dictionary being written: its entries in byte order, where its
    /// lengths go, the next entry to write and where the last one's value began.
    private struct OpenDictionary {
        var entries: [(key: [UInt8], item: Item)]
        var lengths: Int
        var next = 0
        var valueStart = 0
    }

    /// Writes the dictionary of `entries` and every dictionary inside it,
    /// with a stack of those being written rather than recursion, so that
    /// no nesting can exhaust the thread's stack.
    private mutating func dictionary(_ entries: [(key: [UInt8], item: Item)]) throws(Unwritable) {
        var open = [try start(entries)]
        while var current = open.popLast() {
            if current.next > 0 {
                try output.patch(at: current.lengths + 4 * (current.next - 1), with: output.data.count - current.valueStart)
            }
            guard current.next < current.entries.count else { continue }
            let item = current.entries[current.next].item
            current.next += 1
            current.valueStart = output.data.count
            if case .wrapper(let wrapper) = item, wrapper.isDirectory {
                open.append(current)
                open.append(try start(Self.childEntries(of: wrapper)))
            } else {
                try value(item)
                open.append(current)
            }
        }
    }

    /// A dictionary's tag, count, keys in byte order and lengths to be
    /// patched once each value is written.
    private mutating func start(_ entries: [(key: [UInt8], item: Item)]) throws(Unwritable) -> OpenDictionary {
        let sorted = entries.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        output.u32(FlatRTFD.dictionaryTag)
        output.u32(UInt32(sorted.count))
        for entry in sorted { try output.sized(entry.key) }
        let lengths = output.data.count
        for _ in sorted { output.u32(0) }
        return OpenDictionary(entries: sorted, lengths: lengths)
    }

    /// A value that is data: bytes of ours, a link's target, a file's contents.
    private mutating func value(_ item: Item) throws(Unwritable) {
        output.u32(FlatRTFD.dataTag)
        switch item {
        case .bytes(let bytes):
            try output.sized(bytes)
        case .wrapper(let wrapper) where wrapper.isSymbolicLink:
            guard let target = wrapper.symbolicLinkDestinationBytes, String(validating: target, as: UTF8.self) != nil else { throw Unwritable() }
            try output.sized(target)
        case .wrapper(let wrapper):
            guard let size = wrapper.regularFileSize else { throw Unwritable() }
            try output.sizeField(size)
            let end = output.data.count + size
            do {
                try wrapper.forEachContentsBlock { block in
                    guard output.data.count + block.count <= end else { throw Unwritable() }
                    output.append(block)
                }
            } catch {
                throw Unwritable()
            }
            guard output.data.count == end else { throw Unwritable() }
        }
    }

    /// The bytes the serialization of `wrapper` takes, about: its files'
    /// sizes and what each entry adds, so that the output is allocated once;
    /// nil, before anything is allocated, if a file is too large to write.
    private static func estimatedSize(of wrapper: FileWrapper, largestValue: Int) -> Int? {
        var total = FlatRTFD.header.count + 256
        var pending = [wrapper]
        while let next = pending.popLast() {
            total += 64
            if next.isDirectory {
                for (key, child) in next.children {
                    total += 3 * key.utf8.count + 48
                    pending.append(child)
                }
            } else if let size = next.regularFileSize {
                guard size <= largestValue else { return nil }
                total += size + (size >= FlatRTFD.pageSize ? FlatRTFD.pageSize + 12 : 0)
            }
        }
        return total
    }
}

/// A stream being written: data in memory, every size checked against
/// Apple's limit.
struct FlatRTFDOutput {
    private(set) var data: Data
    private let largestValue: Int

    init(largestValue: Int, capacity: Int) {
        self.largestValue = largestValue
        data = Data(capacity: capacity)
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
         UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
    }

    mutating func u32(_ value: UInt32) {
        data.append(contentsOf: Self.littleEndian(value))
    }

    mutating func append(_ bytes: [UInt8]) {
        data.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        data.append(bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// A size and its bytes.
    mutating func sized(_ bytes: [UInt8]) throws(FlatRTFDWriter.Unwritable) {
        try sizeField(bytes.count)
        append(bytes)
    }

    /// The size of bytes that follow: plain when they are shorter than a
    /// page or would start on a page boundary anyway; else the marker, the
    /// size and a pad count, and the zeros that put them on one.
    mutating func sizeField(_ size: Int) throws(FlatRTFDWriter.Unwritable) {
        guard size <= largestValue else { throw FlatRTFDWriter.Unwritable() }
        let page = FlatRTFD.pageSize
        if size < page || (data.count + 4) % page == 0 {
            u32(UInt32(size))
            return
        }
        let pad = page - ((data.count + 12) & (page - 1))
        u32(FlatRTFD.alignedMarker)
        u32(UInt32(size))
        u32(UInt32(pad))
        data.append(contentsOf: repeatElement(0, count: pad))
    }

    /// Writes `length` over the four bytes at `offset`.
    mutating func patch(at offset: Int, with length: Int) throws(FlatRTFDWriter.Unwritable) {
        guard length <= largestValue else { throw FlatRTFDWriter.Unwritable() }
        let bytes = Self.littleEndian(UInt32(length))
        data.replaceSubrange(offset..<(offset + 4), with: bytes)
    }
}
