import FileWrapperKit

/// One entry of an archive as its header describes it, whatever it is:
/// a listing shows absolute paths, `..` components and device nodes as they
/// are stored (refusing them is the unpacker's and the in-memory reader's job).
public struct ArchiveEntry: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case regularFile, directory, symbolicLink
        /// Another name for an earlier entry, ``ArchiveEntry/hardLinkTarget``.
        case hardLink
        case characterDevice, blockDevice, fifo, socket
        /// A header that names no type libarchive knows (damaged or exotic
        /// archives); listed, never unpacked.
        case unknown
    }

    /// The path's bytes as stored (names in zip and tar need not be UTF-8).
    public var pathBytes: [UInt8]
    public var kind: Kind
    /// The contents' size as the header states it; `nil` when it does not
    /// (a zip entry streamed with a data descriptor).
    public var size: Int64?
    /// Permission bits, with set-user-ID, set-group-ID and sticky; `nil`
    /// when the archive does not record them (a zip made on FAT or NTFS).
    public var permissions: UInt16?
    /// `nil` when the archive records no modification time, or only a
    /// zip's MS-DOS date and time, which names no time zone.
    public var modified: FileTimestamp?
    /// User and group IDs, for formats that record them (tar and cpio),
    /// when both fit in 32 bits.
    public var owner: FileOwner?
    /// A symbolic link's target, as stored.
    public var symbolicLinkTarget: [UInt8]?
    /// The path of the entry a hard link names, as stored.
    public var hardLinkTarget: [UInt8]?
    /// Whether the contents (or the header) are encrypted; libarchive
    /// cannot read them.
    public var isEncrypted: Bool
    /// The `user.*` extended attributes a pax entry records; `nil` when it records none.
    public var extendedAttributes: [ExtendedAttributeName: [UInt8]]? = nil

    /// The path as a String, or `nil` when its bytes are not UTF-8.
    public var path: String? {
        String(validating: pathBytes, as: UTF8.self)
    }

    /// The path as text that shows every byte (`\xFF` for one that is not
    /// UTF-8, `\u{7}` for a control character, `\\` for a backslash), so
    /// that two paths never print alike.
    public var displayPath: String {
        PathDisplay.text(pathBytes)
    }
}

extension ArchiveEntry {
    /// The path for ``ArchiveError/entry``: as stored when it is UTF-8 (the
    /// error's description escapes what needs it), else as ``displayPath``.
    var pathForErrors: String {
        path ?? displayPath
    }
}
