/// The digests of a tree, computed bottom up like a Merkle tree. The
/// encoding is specified in `docs/tree-digest.md`; this is its one
/// implementation.
///
/// The tree digest covers names, kinds, the owner's execute bit of files,
/// symbolic link targets and file contents, nothing else, so one tree has
/// the same digest as a bundle, a zip or a tar.zst. The metadata digest
/// covers the rest: permission bits, modification times, owners and
/// extended attributes, and the names that place them.
public enum TreeDigest {
    /// The prefix of a printed tree digest; the `1` is the encoding's version.
    public static let treePrefix = "fwk-tree-v1:"
    /// The prefix of a printed metadata digest.
    public static let metadataPrefix = "fwk-meta-v1:"

    /// The tree digest of an entry that is not a directory; `nil` for a
    /// file without a content digest.
    static func node(_ entry: ManifestEntry) -> SHA256Digest? {
        var hasher = SHA256Hasher()
        switch entry.contentKind {
        case .file, .hardLink:
            guard let content = entry.contentDigest else { return nil }
            withUnsafeBytes(of: (UInt8(ascii: "f"), UInt8(entry.isExecutable ? 1 : 0))) { hasher.update($0) }
            content.withUnsafeBytes { hasher.update($0) }
        case .symlink:
            withUnsafeBytes(of: UInt8(ascii: "l")) { hasher.update($0) }
            entry.linkTarget?.withUnsafeBytes { hasher.update($0) }
        case .other:
            withUnsafeBytes(of: UInt8(ascii: "o")) { hasher.update($0) }
        case .directory:
            preconditionFailure("a directory's digests come from TreeDigest.Directory")
        }
        return hasher.finalize()
    }

    /// The metadata digest of an entry that is not a directory.
    static func metadata(_ entry: ManifestEntry) -> SHA256Digest {
        var hasher = SHA256Hasher()
        updateMetadata(&hasher, entry)
        return hasher.finalize()
    }

    /// The digests of a directory, its children given one by one in
    /// manifest order (by name), so that no list of them is kept.
    struct Directory {
        /// `nil` once a child has no tree digest: then neither has the directory.
        private var tree: SHA256Hasher?
        private var metadata = SHA256Hasher()
        /// One child's length, name and digest, gathered for one update.
        private var scratch: [UInt8] = []

        init(_ entry: ManifestEntry) {
            var tree = SHA256Hasher()
            tree.update([UInt8(ascii: "d")])
            self.tree = tree
            TreeDigest.updateMetadata(&metadata, entry)
        }

        /// Adds the child called `name`: its length (4 bytes, big-endian),
        /// the name and the digest, to each of the two digests.
        mutating func add(name: ArraySlice<UInt8>, tree childTree: SHA256Digest?, metadata childMetadata: SHA256Digest) {
            if let childTree, tree != nil {
                gather(name, childTree)
                tree!.update(scratch)
            } else {
                tree = nil
            }
            gather(name, childMetadata)
            metadata.update(scratch)
        }

        consuming func finalize() -> (tree: SHA256Digest?, metadata: SHA256Digest) {
            (tree.map { $0.finalize() }, metadata.finalize())
        }

        private mutating func gather(_ name: ArraySlice<UInt8>, _ digest: SHA256Digest) {
            scratch.removeAll(keepingCapacity: true)
            TreeDigest.append(UInt64(name.count), width: 4, to: &scratch)
            scratch.append(contentsOf: name)
            digest.withUnsafeBytes { scratch.append(contentsOf: $0) }
        }
    }

    /// Feeds `fields(e)` of the specification to `hasher`: the fixed-size
    /// fields gathered on the stack (this runs for every entry), then the
    /// extended attributes, if any.
    private static func updateMetadata(_ hasher: inout SHA256Hasher, _ entry: ManifestEntry) {
        // No attributes and unknown ones encode alike, so that a form that
        // cannot hold them (an archive, an mtree) agrees with a bundle without.
        let attributes = entry.extendedAttributes.flatMap { $0.isEmpty ? nil : $0 }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var count = 0
            func put(_ value: UInt64, width: Int) {
                for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
                    buffer[count] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
                    count += 1
                }
            }
            put(UInt64(UInt8(ascii: "m")), width: 1)
            put(UInt64(kindCode(entry.kind)), width: 1)
            if let permissions = entry.permissions {
                put(1, width: 1)
                put(UInt64(permissions), width: 2)
            } else {
                put(0, width: 1)
            }
            if let modified = entry.modified {
                put(1, width: 1)
                put(UInt64(bitPattern: modified.seconds), width: 8)
                put(UInt64(modified.nanoseconds), width: 4)
            } else {
                put(0, width: 1)
            }
            if let owner = entry.owner {
                put(1, width: 1)
                put(UInt64(owner.userID), width: 4)
                put(UInt64(owner.groupID), width: 4)
            } else {
                put(0, width: 1)
            }
            put(attributes == nil ? 0 : 1, width: 1)
            hasher.update(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[..<count])))
        }
        guard let attributes else { return }
        var bytes: [UInt8] = []
        append(UInt64(attributes.count), width: 4, to: &bytes)
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            appendCounted(name.bytes, to: &bytes)
            appendCounted(value, to: &bytes)
        }
        hasher.update(bytes)
    }

    private static func kindCode(_ kind: ManifestEntry.Kind) -> UInt8 {
        switch kind {
        case .file: UInt8(ascii: "f")
        case .directory: UInt8(ascii: "d")
        case .symlink: UInt8(ascii: "l")
        case .hardLink: UInt8(ascii: "h")
        case .other: UInt8(ascii: "o")
        }
    }

    private static func appendCounted(_ value: [UInt8], to bytes: inout [UInt8]) {
        append(UInt64(value.count), width: 4, to: &bytes)
        bytes.append(contentsOf: value)
    }

    /// `value`'s low `width` bytes, most significant first.
    private static func append(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
