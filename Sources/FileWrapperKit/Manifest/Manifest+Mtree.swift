extension Manifest {
    /// The manifest as mtree, one line an entry with full paths (`.` for
    /// the root, `./a/b` below it), which libarchive reads
    /// (`bsdtar -cf - @manifest.mtree`). mtree cannot hold everything
    /// (`docs/manifest-format.md`): a hard link is written as the file it
    /// names, extended attributes and directory digests are left out, and
    /// so are devices, FIFOs and sockets (`other`), each with a comment.
    func mtreeBytes() -> [UInt8] {
        var text = "#mtree v2.0\n# made by FileWrapperKit from kind=\(source.kind.rawValue) name=\(MtreeText.escaped(Array(source.name.utf8)))"
        if let format = source.format { text += " format=" + MtreeText.escaped(Array(format.utf8)) }
        text += "\n"
        for entry in entries {
            let name = entry.path.isEmpty ? "." : "./" + MtreeText.escaped(entry.path)
            let type: String
            switch entry.kind {
            case .directory: type = "dir"
            case .file, .hardLink: type = "file"
            case .symlink: type = "link"
            case .other:
                text += "# left out: \(name) is a device, FIFO or socket, which a manifest does not tell apart\n"
                continue
            }
            text += name + " type=" + type
            if let permissions = entry.permissions { text += " mode=" + ManifestFileSyntax.modeText(permissions) }
            // A hard link takes the size and digest of the file it names.
            let named = entry.kind == .hardLink ? entry.linkTarget.flatMap { self.entry(at: ManifestPath.normalized($0) ?? $0) } : nil
            if let size = entry.size ?? named?.size { text += " size=\(size)" }
            if let modified = entry.modified { text += " time=" + ManifestFileSyntax.text(modified) }
            if let owner = entry.owner { text += " uid=\(owner.userID) gid=\(owner.groupID)" }
            if entry.kind == .symlink, let target = entry.linkTarget { text += " link=" + MtreeText.escaped(target) }
            if let digest = entry.contentDigest ?? named?.contentDigest { text += " sha256digest=" + digest.hex }
            text += "\n"
        }
        return Array(text.utf8)
    }

    /// Reads mtree, ours or another tool's (``MtreeParser``). The source is
    /// the one our header comment names, else a bundle named `name`.
    init(mtree data: [UInt8], name: String) throws(ManifestError) {
        var parser = MtreeParser(file: name)
        let entries = try parser.parse(data)
        self = try ManifestFileSyntax.manifest(entries, source: parser.source ?? Source(kind: .bundle, name: name), file: name)
    }
}
