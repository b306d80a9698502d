import FileWrapperKit

/// Where a zip's members lie, each from its local header to the end of its
/// data, checked against each other and the central directory: a member
/// that shares bytes with another (David Fifield's overlapping zip bomb,
/// whose many members all expand one shared kernel) or runs into the
/// directory is refused, as Info-ZIP's unzip refuses it. Sorted by where
/// each begins, a member overlaps some later one exactly when it overlaps
/// the next, so the check costs a sort: O(n log n) in the member count.
enum ZipMemberExtents {
    /// One member's bytes in the archive, counted from its start.
    struct Extent {
        /// Where the local header begins, corrected for bytes before the zip.
        var start: Int64
        /// Where the member ends: its local header with name and extra
        /// field, its compressed size, and the shortest data descriptor
        /// (``descriptorLength``) when the flags of both its headers say
        /// one follows (libarchive's test zip of a PPMd, AES-256 member
        /// flags one in its local header alone, and has none); or no
        /// earlier than that, for a reader that has not read the local
        /// header (``ZipContainerIndex``).
        var end: Int64
        /// The member's name, as readers show it, for errors.
        var name: [UInt8]

        /// The member whose local header begins at `start` and is
        /// `headerLength` bytes long, its data `compressedSize`, with a
        /// data descriptor after it when `hasDescriptor`: as far as an
        /// `Int64` goes.
        init(start: Int64, headerLength: Int, compressedSize: UInt64, hasDescriptor: Bool, name: [UInt8]) {
            self.start = start
            let length = Int64(clamping: compressedSize).addingReportingOverflow(Int64(headerLength) + (hasDescriptor ? ZipMemberExtents.descriptorLength : 0))
            let end = length.overflow ? (partialValue: 0, overflow: true) : start.addingReportingOverflow(length.partialValue)
            self.end = end.overflow ? .max : end.partialValue
            self.name = name
        }
    }

    /// A data descriptor's length at the least: no signature, 4-byte sizes
    /// (APPNOTE 4.3.9). Counting no more than that refuses no zip whose
    /// longer descriptor a writer put there.
    static let descriptorLength: Int64 = 12

    /// Where a member may end at the most: where the next member, or the
    /// central directory, begins.
    struct Bound {
        var offset: Int64
        /// The next member's name; nil when the directory comes next.
        var next: [UInt8]?
    }

    /// Refuses a zip (`archive`, for errors) in which one of `extents` runs
    /// past the start of another or of the central directory, at
    /// `directoryStart`: an error of kind corrupt naming the member. Gives
    /// each member's ``Bound``, in the order of `extents`.
    @discardableResult
    static func check(_ extents: [Extent], directoryStart: Int64, archive: String) throws -> [Bound] {
        let order = extents.indices.sorted { (extents[$0].start, $0) < (extents[$1].start, $1) }
        var bounds = [Bound](repeating: Bound(offset: directoryStart), count: extents.count)
        for (position, index) in order.enumerated() {
            let member = extents[index]
            let next = position + 1 < order.count ? extents[order[position + 1]] : nil
            if let next, next.start < directoryStart {
                bounds[index] = Bound(offset: next.start, next: next.name)
            }
            try refuse(member, pastBound: bounds[index], archive: archive)
        }
        return bounds
    }

    /// Refuses `member` when it ends past `bound`.
    static func refuse(_ member: Extent, pastBound bound: Bound, archive: String) throws(ArchiveError) {
        guard member.end > bound.offset else { return }
        throw ArchiveError(.corrupt, archive: archive, entry: String(decoding: member.name, as: UTF8.self), message: overlap(member, bound))
    }

    /// What is wrong with `member`, which ends past `bound`.
    static func overlap(_ member: Extent, _ bound: Bound) -> String {
        let span = "it lies from byte \(member.start) to byte \(member.end)"
        guard let next = bound.next else {
            return "the member runs into the central directory (\(span); the directory begins at byte \(bound.offset)); "
                + "a zip whose member overlaps its directory is refused"
        }
        return "the member overlaps member \"\(PathDisplay.text(next))\" (\(span); that member's local header begins at byte \(bound.offset)); "
            + "a zip whose members share bytes, as an overlapping zip bomb's do, is refused"
    }
}
