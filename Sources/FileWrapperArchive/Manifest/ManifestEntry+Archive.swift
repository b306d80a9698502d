import FileWrapperKit

extension ManifestEntry {
    /// An archive entry as a manifest entry, its path as stored (not yet
    /// cleaned: `ManifestBuilder` does that), without a content digest.
    /// A device node, FIFO, socket or unknown type is `other`; a size is
    /// kept for files only (zip gives symlinks one).
    ///
    /// - Parameter entry: The entry as the archive stores it.
    public init(_ entry: ArchiveEntry) {
        let kind: Kind = switch entry.kind {
        case .regularFile: .file
        case .directory: .directory
        case .symbolicLink: .symlink
        case .hardLink: .hardLink
        case .characterDevice, .blockDevice, .fifo, .socket, .unknown: .other
        }
        self.init(
            path: entry.pathBytes, kind: kind, size: kind == .file ? entry.size : nil, permissions: entry.permissions,
            modified: entry.modified, owner: entry.owner,
            linkTarget: kind == .symlink ? entry.symbolicLinkTarget ?? [] : kind == .hardLink ? entry.hardLinkTarget ?? [] : nil,
            extendedAttributes: entry.extendedAttributes)
    }
}
