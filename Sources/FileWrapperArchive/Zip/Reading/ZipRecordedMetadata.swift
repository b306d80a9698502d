import FileWrapperKit

/// What a zip member's own records say of its permission bits and its
/// modification time, as docs/tree-digest.md ("What archives hold")
/// specifies them, rather than what libarchive 3.6.2 makes of them: it
/// gives a member made on FAT or NTFS invented bits (0664 or 0775, 0444
/// when read-only), reads an MS-DOS date and time in the reader's time
/// zone (`TZ`), and ignores the NTFS time field.
struct ZipRecordedMetadata {
    /// Permission bits (`0o7777`); nil unless the member was made on Unix
    /// (``ZipCentralRecord/unixHost``) and its external attributes hold a
    /// Unix mode (high 16 bits not all zero).
    let permissions: UInt16?
    /// The modification time from the last time field of the local
    /// header's extra field, or, when it has none, of the central
    /// record's (``ZipExtraFields/modified``); nil when neither has one:
    /// an MS-DOS date and time is a wall clock in an unknown time zone,
    /// not a moment.
    let modified: FileTimestamp?

    init(central: ZipCentralRecord, centralFields: ZipExtraFields, localFields: ZipExtraFields) {
        let mode = central.externalAttributes >> 16
        permissions = central.versionMadeBy >> 8 == ZipCentralRecord.unixHost && mode != 0 ? UInt16(mode & 0o7777) : nil
        modified = localFields.modified ?? centralFields.modified
    }
}
