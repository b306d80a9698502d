extension Manifest {
    /// The manifest of `wrapper` and everything below it; `name` stands for
    /// it in errors and in ``Manifest/source``. With `hashingContents`, each
    /// file's contents are hashed, read block by block from disk for a
    /// wrapper read lazily.
    ///
    /// - Parameters:
    ///   - wrapper: The root of the tree.
    ///   - name: The tree's name in errors and in ``Manifest/source``.
    ///   - hashingContents: Whether to hash every regular file.
    /// - Throws: ``FileWrapperError`` when a lazily read file's contents
    ///   cannot be read from disk; ``ManifestError`` naming the entry when a
    ///   name makes a path that leaves the tree (`..`).
    public init(_ wrapper: FileWrapper, name: String, hashingContents: Bool = true) throws {
        var builder = ManifestBuilder(source: Source(kind: .fileWrapper, name: name))
        var stack: [(path: [UInt8], wrapper: FileWrapper)] = [([], wrapper)]
        while let (path, current) = stack.popLast() {
            var entry = ManifestEntry(
                path: path, kind: .file, permissions: current.attributes.permissions,
                modified: current.attributes.modificationDate, owner: current.attributes.owner)
            switch current.kind {
            case .directory:
                entry.kind = .directory
                entry.extendedAttributes = ExtendedAttributeName.keyed(current.attributes.extendedAttributes)
                for (name, child) in current.children {
                    stack.append((path.isEmpty ? Array(name.utf8) : path + [UInt8(ascii: "/")] + Array(name.utf8), child))
                }
            case .symbolicLink:
                entry.kind = .symlink
                entry.linkTarget = current.linkTarget
            case .regularFile:
                entry.extendedAttributes = ExtendedAttributeName.keyed(current.attributes.extendedAttributes)
                entry.size = current.regularFileSize.map(Int64.init)
                if hashingContents {
                    (entry.contentDigest, entry.size) = try SHA256Hasher.digest { try current.forEachContentsBlock($0) }
                }
            }
            try builder.add(entry)
        }
        self = try (consume builder).finish()
    }
}
