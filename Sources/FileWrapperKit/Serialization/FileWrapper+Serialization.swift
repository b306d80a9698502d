import Foundation

extension FileWrapper {
    /// The wrapper and everything below it as Apple's systems serialize a
    /// file wrapper: the "flat RTFD" of `com.apple.flat-rtfd` and the
    /// pasteboard, which `FileWrapper(serializedRepresentation:)` reads on
    /// Apple's systems as on ours (docs/flat-rtfd.md).
    ///
    /// A directory is a dictionary of its children under their keys in
    /// ``fileWrappers`` (unique spellings such as `"1__#$!@%!#__name"`
    /// included), with each child's permissions, kind and modification time
    /// in whole seconds; a top-level regular file or link is wrapped as
    /// Apple wraps it; the preferred filename is kept, in UTF-8 and in
    /// NeXTSTEP encoding. Deterministic, unlike Apple's: keys in byte order,
    /// data of 4 KiB or more on a 4 KiB boundary.
    ///
    /// The format cannot hold, and so drops: owners, extended attributes,
    /// sub-second times, the top-level wrapper's own attributes (a top-level
    /// file's time reads back as 1970-01-01), the children's preferred
    /// filenames (only their keys). A wrapper without permissions is written
    /// with ours (0644, 0755), one without a date with 1970-01-01.
    ///
    /// `nil` where Apple's writer fails or its reader would read another
    /// tree: a file, or a directory's whole contents, of 2 GiB or more; a
    /// modification time before 1970 or after 2038-01-19 03:14:07 UTC; a
    /// link target that is not UTF-8; a key `.`, `..`, or with `/` in it;
    /// a file that cannot be read.
    public var serializedRepresentation: Data? {
        FlatRTFDWriter.data(for: self)
    }

    /// A wrapper from a serialized representation: Apple's format, as
    /// Apple's systems and ``serializedRepresentation`` write it, read by
    /// Apple's rules (the header optional, each child's permissions and
    /// time from its directory's info, its preferred filename from its key
    /// without the unique prefix); or the pax tar that earlier versions of
    /// this package wrote. `nil` if the data is neither, malformed or
    /// truncated: every size and count is checked against the bytes that
    /// remain before anything is kept, each file's bytes are copied once,
    /// and no nesting is too deep (neither direction recurses).
    ///
    /// - Parameter data: A flat RTFD, or a pax tar of an earlier version.
    public convenience init?(serializedRepresentation data: Data) {
        guard let read = FileWrapper.parseSerialization(data) else { return nil }
        self.init(kind: read.kind)
        take(read)
    }

    /// The tree a serialized representation holds (flat RTFD, or the pax
    /// tar of earlier versions); nil if it is neither or is damaged.
    static func parseSerialization(_ data: Data) -> FileWrapper? {
        data.withUnsafeBytes { bytes in
            SerializedTar.isTar(bytes) ? SerializedTar.fileWrapper(from: bytes) : FlatRTFDReader.fileWrapper(from: bytes)
        }
    }

    /// Takes what `other`, a wrapper no one else holds, has: its children,
    /// contents or target, attributes and preferred filename.
    func take(_ other: FileWrapper) {
        for (key, child) in other.children {
            child.removeParent(other)
            children[key] = child
            child.addParent(self)
        }
        contents = other.contents
        linkTarget = other.linkTarget
        attributes = other.attributes
        adoptName(nil, preferred: other.preferredFilename)
    }
}
