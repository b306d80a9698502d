/// Where a zip being written turns to zip64: the largest size, offset and
/// entry count that the classic records hold. The format's own, unless a
/// test binds lower ones to ``current`` (as ZIPFoundation's
/// `Archive+ZIP64.swift` lets its tests do), so that the zip64 records are
/// written and read back on MiB of data and a thousand entries instead of
/// 4 GiB and 65,535. A zip written with lower thresholds is still a valid
/// zip: its fields read 0xFFFFFFFF and 0xFFFF and the values are in zip64
/// fields and the zip64 end record, which every reader then follows.
package struct Zip64Thresholds: Sendable, Hashable {
    /// A size or offset at or past this goes to a zip64 field, its 32-bit field 0xFFFFFFFF.
    package var bytes: UInt64
    /// An entry count at or past this goes to the zip64 end record, the classic count 0xFFFF.
    package var entries: UInt64

    package init(bytes: UInt64 = 0xFFFF_FFFF, entries: UInt64 = 0xFFFF) {
        precondition(bytes >= 1 << 20 && bytes <= 0xFFFF_FFFF && entries <= 0xFFFF, "zip64 thresholds only come down")
        self.bytes = bytes
        self.entries = entries
    }

    /// The format's: 0xFFFFFFFF bytes and 0xFFFF entries.
    package static let format = Zip64Thresholds()

    /// What a ``ZipWriter`` made in this task uses: ``format`` unless a test binds others.
    @TaskLocal package static var current = Zip64Thresholds.format

    /// Past this size, an entry whose sizes are not known in its local
    /// header gets zip64 sizes there and in its descriptor: its deflated
    /// size might pass ``bytes`` even when it is itself a little below
    /// (0xFF000000 for the format's 0xFFFFFFFF).
    var descriptorSizes: UInt64 { bytes - bytes / 256 }
}
