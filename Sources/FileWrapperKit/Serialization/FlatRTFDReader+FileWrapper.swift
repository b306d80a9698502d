import Foundation

/// The tree of a flat RTFD, by Apple's reading rules
/// (`-[NSFileWrapper initWithSerializedRepresentation:]`).
extension FlatRTFDReader {
    /// The wrapper that the blob `bytes` holds, or nil if it is malformed.
    ///
    /// - Top level: the preferred filename from `__@UTF8PreferredName@__`,
    ///   else `__@PreferredName@__` (NeXTSTEP encoding); keys that do not
    ///   decode stay, as Apple leaves them. With a `".."` key the wrapper is
    ///   that value, a regular file or a symbolic link (or a directory) as
    ///   `"."` says; without one it is a directory whose own attributes were
    ///   never stored.
    /// - Each child's key is its filename, and what follows the first
    ///   `__#$!@%!#__` in it (else the key) its preferred filename; its
    ///   permissions and whole-second modification time come from its
    ///   directory's `"."`; without an entry there it has none.
    /// - Refused: a key that is not UTF-8 or not a file name, two keys one
    ///   `String` (as a directory on disk refuses them), a kind that
    ///   contradicts its value, and whatever ``stream(of:)`` refuses.
    ///
    /// Unlike Apple's reader, a key `"X.tiff"` beside `"X"` stays a child
    /// rather than becoming X's icon, and a missing directory info leaves
    /// permissions unset (ours: 0755, 0644) rather than 0777 and 0666.
    package static func fileWrapper(from bytes: UnsafeRawBufferPointer) -> FileWrapper? {
        guard let stream = stream(of: bytes) else { return nil }
        var entries = stream.dictionaries[stream.top]
        guard let (name, leaf) = takePreferredName(from: &entries, in: bytes) else { return nil }

        let wrapper: FileWrapper
        var pending: [(directory: FileWrapper, dictionary: Int)] = []
        if let leaf {
            guard let info = directoryInfo(of: entries, in: bytes),
                  let made = node(entries[leaf].value, info: info[FlatRTFD.leafKey], in: bytes, pending: &pending)
            else { return nil }
            wrapper = made
        } else {
            wrapper = FileWrapper(kind: .directory)
            guard fill(wrapper, with: entries, in: bytes, pending: &pending) else { return nil }
        }
        // Directories are filled from a list rather than by recursion, so
        // that no nesting can exhaust the thread's stack.
        while let (directory, index) = pending.popLast() {
            guard fill(directory, with: stream.dictionaries[index], in: bytes, pending: &pending) else { return nil }
        }
        wrapper.adoptName(nil, preferred: name)
        return wrapper
    }

    /// The top level's preferred filename, by Apple's rules: from
    /// `__@UTF8PreferredName@__`, else `__@PreferredName@__` (NeXTSTEP
    /// encoding), whose keys are then removed from `entries`; keys that do
    /// not decode stay, as Apple leaves them. `name` is nil without one;
    /// nil when a name key is not data or the name is not a file name.
    /// Also gives the index in `entries` (after the removal) of the `".."`
    /// key of a top-level leaf, if any.
    package static func takePreferredName(
        from entries: inout [FlatRTFDEntry], in bytes: UnsafeRawBufferPointer
    ) -> (name: String?, leaf: Int?)? {
        func index(of key: [UInt8]) -> Int? { entries.firstIndex { bytes[$0.key].elementsEqual(key) } }
        func dataRange(at index: Int) -> Range<Int>? {
            if case .data(let range) = entries[index].value { range } else { nil }
        }
        var name: String?
        if let utf8 = index(of: FlatRTFD.utf8PreferredNameKey) {
            guard let range = dataRange(at: utf8) else { return nil }
            name = String(validating: bytes[range], as: UTF8.self)
        } else if let nextstep = index(of: FlatRTFD.preferredNameKey) {
            guard let range = dataRange(at: nextstep) else { return nil }
            name = String(data: Data(bytes[range]), encoding: .nextstep)
        }
        if let name {
            guard isFileName(Array(name.utf8)) else { return nil }
            entries.removeAll {
                bytes[$0.key].elementsEqual(FlatRTFD.utf8PreferredNameKey) || bytes[$0.key].elementsEqual(FlatRTFD.preferredNameKey)
            }
        }
        return (name, index(of: FlatRTFD.leafKey))
    }

    /// Adds a child to `directory` for each of `entries`, with its
    /// attributes from `"."`; the children that are directories go to
    /// `pending`, to be filled in turn. False if an entry is refused.
    private static func fill(
        _ directory: FileWrapper, with entries: [FlatRTFDEntry], in bytes: UnsafeRawBufferPointer,
        pending: inout [(directory: FileWrapper, dictionary: Int)]
    ) -> Bool {
        guard let info = directoryInfo(of: entries, in: bytes) else { return false }
        directory.children.reserveCapacity(entries.count)
        for entry in entries where !bytes[entry.key].elementsEqual(FlatRTFD.directoryInfoKey) {
            let keyBytes = Array(bytes[entry.key])
            guard isFileName(keyBytes), let key = String(validating: keyBytes, as: UTF8.self), directory.children[key] == nil,
                  let child = node(entry.value, info: info[keyBytes], in: bytes, pending: &pending)
            else { return false }
            let preferred = keyBytes.firstRange(of: FlatRTFD.uniqueSeparator).map { keyBytes[$0.upperBound...] }
            child.adoptName(key, preferred: preferred.flatMap { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) })
            directory.children[key] = child
            child.addParent(directory)
        }
        return true
    }

    /// The `"."` entry of `entries` read as directory info: empty when
    /// there is none, nil when there are two or it is malformed.
    package static func directoryInfo(of entries: [FlatRTFDEntry], in bytes: UnsafeRawBufferPointer) -> [[UInt8]: FlatRTFDInfo]? {
        let infos = entries.filter { bytes[$0.key].elementsEqual(FlatRTFD.directoryInfoKey) }
        guard let only = infos.first else { return [:] }
        guard infos.count == 1, case .data(let range) = only.value else { return nil }
        return directoryInfo(in: bytes, at: range)
    }

    /// The wrapper of one value: a dictionary is a directory (its entries
    /// go to `pending`); data is a regular file, or a symbolic link whose
    /// target it holds when its info says so.
    private static func node(
        _ value: FlatRTFDValue, info: FlatRTFDInfo?, in bytes: UnsafeRawBufferPointer,
        pending: inout [(directory: FileWrapper, dictionary: Int)]
    ) -> FileWrapper? {
        let kind = info.map { $0.kind & (FlatRTFD.directoryKind | FlatRTFD.linkKind) }
        let wrapper: FileWrapper
        switch value {
        case .dictionary(let index):
            guard kind == nil || kind == FlatRTFD.directoryKind else { return nil }
            wrapper = FileWrapper(kind: .directory)
            pending.append((wrapper, index))
        case .data(let range):
            switch kind {
            case nil, 0: wrapper = FileWrapper(regularFileWithContents: copy(range, of: bytes))
            case FlatRTFD.linkKind: wrapper = FileWrapper(symbolicLinkWithDestinationBytes: Array(bytes[range]))
            default: return nil
            }
        }
        if let info {
            wrapper.attributes.permissions = UInt16(truncatingIfNeeded: info.mode) & 0o7777
            wrapper.attributes.modificationDate = FileTimestamp(seconds: Int64(Int32(bitPattern: info.modified)))
        }
        return wrapper
    }

    /// The bytes at `range`, copied once into storage of their own.
    private static func copy(_ range: Range<Int>, of bytes: UnsafeRawBufferPointer) -> Data {
        range.isEmpty ? Data() : Data(bytes: bytes.baseAddress! + range.lowerBound, count: range.count)
    }

    /// Whether `name` can name a child: not empty, `.` or `..`, and without
    /// `/` or NUL.
    package static func isFileName(_ name: [UInt8]) -> Bool {
        !name.isEmpty && name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")]
            && !name.contains(UInt8(ascii: "/")) && !name.contains(0)
    }
}
