import Glibc

/// One entry of a ``Manifest``: what a tree holds at one path.
///
/// Fields a source does not record are `nil`: an archive may have no
/// owner or no modification time, a listing made without hashing has no
/// digests. A comparison never treats an unknown field as a change.
public struct ManifestEntry: Sendable, Hashable {
    /// What an entry is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case file, directory, symlink
        /// Another name for an earlier file of an archive (``linkTarget``
        /// is its path); it counts as a file for the digest and for diff.
        case hardLink = "hardlink"
        /// A device node, FIFO or socket.
        case other
    }

    // The properties are declared in an order that lets the small ones fill
    // the padding after each digest: 184 bytes an entry instead of 200.

    /// The path below the tree's root, components separated by `/`, as
    /// bytes: Linux names need not be UTF-8. Empty for the root itself.
    public var path: [UInt8]
    /// A symbolic link's target, or the path a hard link names.
    public var linkTarget: [UInt8]?
    /// `user.*` extended attributes by name (its bytes).
    public var extendedAttributes: [ExtendedAttributeName: [UInt8]]?
    /// SHA-256 of a file's contents (of the file a hard link names).
    public var contentDigest: SHA256Digest?
    public var kind: Kind
    /// Permission bits, with set-user-ID, set-group-ID and sticky (`0o7777`).
    public var permissions: UInt16?
    /// A directory's tree digest (``TreeDigest``), set when the manifest is made.
    public internal(set) var treeDigest: SHA256Digest?
    public var owner: FileOwner?
    /// The digest of the metadata of this entry and everything below it,
    /// set when the manifest is made.
    public internal(set) var metadataDigest: SHA256Digest?
    /// A file's size in bytes.
    public var size: Int64?
    public var modified: FileTimestamp?

    /// An entry with the fields given; the digests of directories and of
    /// metadata are computed when the manifest is made.
    ///
    /// - Parameters:
    ///   - path: The path below the root, as bytes; empty for the root.
    ///   - kind: What the entry is.
    ///   - size: A file's size in bytes.
    ///   - permissions: Permission bits (`0o7777` at most).
    ///   - modified: The modification time.
    ///   - owner: Owner and group.
    ///   - linkTarget: A symbolic link's target, or the path a hard link names.
    ///   - contentDigest: SHA-256 of a file's contents.
    ///   - extendedAttributes: `user.*` extended attributes by name.
    public init(
        path: [UInt8], kind: Kind, size: Int64? = nil, permissions: UInt16? = nil, modified: FileTimestamp? = nil,
        owner: FileOwner? = nil, linkTarget: [UInt8]? = nil, contentDigest: SHA256Digest? = nil,
        extendedAttributes: [ExtendedAttributeName: [UInt8]]? = nil
    ) {
        self.path = path
        self.kind = kind
        self.size = size
        self.permissions = permissions
        self.modified = modified
        self.owner = owner
        self.linkTarget = linkTarget
        self.contentDigest = contentDigest
        self.extendedAttributes = extendedAttributes
    }

    /// The path as a `String`, or `nil` when its bytes are not UTF-8.
    public var pathString: String? {
        String(validating: path, as: UTF8.self)
    }

    /// The path for people: `.` for the root; bytes that are not UTF-8,
    /// control characters and backslashes escaped (`\xFF`, `\u{A}`, `\\`),
    /// so that two paths never print alike.
    public var displayPath: String {
        path.isEmpty ? "." : PathDisplay.text(path)
    }

    /// The last component of the path (empty for the root).
    public var name: ArraySlice<UInt8> {
        guard let slash = path.lastIndex(of: ManifestPath.separator) else { return path[...] }
        return path[(slash + 1)...]
    }

    /// Whether the owner's execute bit is set: the one permission bit the
    /// tree digest covers.
    public var isExecutable: Bool {
        (permissions ?? 0) & 0o100 != 0
    }

    /// File, directory, symlink or other, with a hard link counted as the file it names.
    public var contentKind: Kind {
        kind == .hardLink ? .file : kind
    }
}

/// Paths of manifest entries: their order, parents and checks.
public enum ManifestPath {
    static let separator = UInt8(ascii: "/")

    /// The manifest order: component by component, each compared by bytes;
    /// the same as comparing the paths' bytes with `/` taken as lower than
    /// any other byte. A directory comes right before everything below it,
    /// so each subtree is one run of entries.
    ///
    /// - Parameters:
    ///   - lhs: A path.
    ///   - rhs: Another path.
    /// - Returns: `true` when `lhs` comes before `rhs`.
    public static func precedes(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in precedes(left, right) }
        }
    }

    /// ``precedes(_:_:)`` on the bytes in place. Sorting a manifest spends
    /// its time here, mostly in the long prefixes that paths share, so
    /// those are skipped eight bytes at a time.
    private static func precedes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = min(lhs.count, rhs.count)
        var index = 0
        while index + 8 <= count {
            let left = UnsafeRawPointer(lhs.baseAddress! + index).loadUnaligned(as: UInt64.self)
            let right = UnsafeRawPointer(rhs.baseAddress! + index).loadUnaligned(as: UInt64.self)
            if left != right {
                // The first differing byte in memory order.
                index += (left ^ right).littleEndian.trailingZeroBitCount / 8
                break
            }
            index += 8
        }
        while index < count, lhs[index] == rhs[index] {
            index += 1
        }
        guard index < count else { return lhs.count < rhs.count }
        let left = lhs[index], right = rhs[index]
        if left == separator { return true }
        if right == separator { return false }
        return left < right
    }

    /// The parent's path (empty for a top-level entry); `nil` for the root.
    ///
    /// - Parameter path: A clean path.
    /// - Returns: The parent's path; nil when `path` is the root.
    public static func parent(of path: [UInt8]) -> [UInt8]? {
        guard !path.isEmpty else { return nil }
        guard let slash = path.lastIndex(of: separator) else { return [] }
        return Array(path[..<slash])
    }

    /// Whether `path` is `ancestor` or lies below it.
    ///
    /// - Parameters:
    ///   - path: A clean path.
    ///   - ancestor: Another; empty for the root, which holds every path.
    /// - Returns: `true` when `path` is `ancestor` or lies below it.
    public static func isWithin(_ path: [UInt8], _ ancestor: [UInt8]) -> Bool {
        if ancestor.isEmpty { return true }
        guard path.count >= ancestor.count, path.count == ancestor.count || path[ancestor.count] == separator else { return false }
        return path.withUnsafeBytes { path in
            ancestor.withUnsafeBytes { memcmp(path.baseAddress!, $0.baseAddress!, $0.count) == 0 }
        }
    }

    /// `path` made relative and clean, as an archive may store it: `./`
    /// prefixes, empty and `.` components and a trailing `/` dropped; the
    /// root is empty. `nil` for an absolute path or one with a `..` component,
    /// which would leave the tree.
    ///
    /// - Parameter path: The path as stored.
    /// - Returns: The clean path; nil when it would leave the tree.
    public static func normalized(_ path: [UInt8]) -> [UInt8]? {
        guard path.first != separator else { return nil }
        if isClean(path) { return path }
        var result: [UInt8] = []
        result.reserveCapacity(path.count)
        for component in path.split(separator: separator, omittingEmptySubsequences: true) {
            if component.elementsEqual([UInt8(ascii: ".")]) { continue }
            if component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) { return nil }
            if !result.isEmpty { result.append(separator) }
            result.append(contentsOf: component)
        }
        return result
    }

    /// Whether `path` has no empty, `.` or `..` component (so no doubled or
    /// trailing `/` either): the common case, which needs no copy.
    private static func isClean(_ path: [UInt8]) -> Bool {
        var componentStart = 0
        for end in path.indices where path[end] == separator {
            if !isPlainComponent(path[componentStart..<end]) { return false }
            componentStart = end + 1
        }
        return path.isEmpty || isPlainComponent(path[componentStart...])
    }

    private static func isPlainComponent(_ component: ArraySlice<UInt8>) -> Bool {
        let dot = UInt8(ascii: ".")
        switch component.count {
        case 0: return false
        case 1: return component.first != dot
        case 2: return !(component.first == dot && component.last == dot)
        default: return true
        }
    }
}
