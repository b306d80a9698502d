extension Manifest {
    /// Writes the manifest as mtree, one line an entry with full paths (`.`
    /// for the root, `./a/b` below it), which libarchive reads
    /// (`bsdtar -cf - @manifest.mtree`). mtree cannot hold everything
    /// (`docs/manifest-format.md`): a hard link is written as the file it
    /// names, extended attributes and directory digests are left out, and
    /// so are devices, FIFOs and sockets (`other`), each with a comment.
    func writeMtree<Failure: Error>(to deliver: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        var text = ManifestText()
        text.append("#mtree v2.0\n# made by FileWrapperKit from kind=")
        text.append(utf8: source.kind.rawValue)
        text.append(" name=")
        MtreeText.append(escaping: Array(source.name.utf8), to: &text)
        if let format = source.format {
            text.append(" format=")
            MtreeText.append(escaping: Array(format.utf8), to: &text)
        }
        text.append("\n")
        try appendEntries(to: &text, handingOnTo: deliver) { index, text in
            appendMtreeLine(entries[index], to: &text)
        }
        try text.handOn(finishing: true, to: deliver)
    }

    private func appendMtreeLine(_ entry: ManifestEntry, to text: inout ManifestText) {
        let type: StaticString
        switch entry.kind {
        case .directory: type = "dir"
        case .file, .hardLink: type = "file"
        case .symlink: type = "link"
        case .other:
            text.append("# left out: ")
            appendMtreeName(entry.path, to: &text)
            text.append(" is a device, FIFO or socket, which a manifest does not tell apart\n")
            return
        }
        appendMtreeName(entry.path, to: &text)
        text.append(" type=")
        text.append(type)
        if let permissions = entry.permissions {
            text.append(" mode=")
            text.append(mode: permissions)
        }
        // A hard link takes the size and digest of the file it names.
        let named = entry.kind == .hardLink ? entry.linkTarget.flatMap { self.entry(at: ManifestPath.normalized($0) ?? $0) } : nil
        if let size = entry.size ?? named?.size {
            text.append(" size=")
            text.append(decimal: size)
        }
        if let modified = entry.modified {
            text.append(" time=")
            text.append(time: modified)
        }
        if let owner = entry.owner {
            text.append(" uid=")
            text.append(decimal: owner.userID)
            text.append(" gid=")
            text.append(decimal: owner.groupID)
        }
        if entry.kind == .symlink, let target = entry.linkTarget {
            text.append(" link=")
            MtreeText.append(escaping: target, to: &text)
        }
        if let digest = entry.contentDigest ?? named?.contentDigest {
            text.append(" sha256digest=")
            text.append(hex: digest)
        }
        text.append("\n")
    }

    /// `.` for the root, `./` and the escaped path below it.
    private func appendMtreeName(_ path: [UInt8], to text: inout ManifestText) {
        if path.isEmpty {
            text.append(".")
        } else {
            text.append("./")
            MtreeText.append(escaping: path, to: &text)
        }
    }

    /// Reads mtree, ours or another tool's (``MtreeParser``), within
    /// `limits`. The source is the one our header comment names, else a
    /// bundle named `name`.
    init(mtree data: [UInt8], name: String, limits: ManifestReadLimits) throws(ManifestError) {
        var parser = MtreeParser(file: name, limits: limits)
        let entries = try parser.parse(data)
        self = try ManifestFileSyntax.manifest(
            entries, source: parser.source ?? Source(kind: .bundle, name: name), file: name, limits: limits)
    }
}
