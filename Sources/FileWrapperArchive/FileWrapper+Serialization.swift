import FileWrapperKit
import Foundation

extension FileWrapper {
    /// The wrapper and everything below it as one deterministic pax tar:
    /// the same tree gives the same bytes whenever it is serialized. The
    /// wrapper is the archive's one top-level entry, named by its preferred
    /// filename. A wrapper without a modification date (one built in
    /// memory) is written with the epoch, 1970-01-01 00:00:00 UTC, not the
    /// time of the call: a fixed time that, unlike the tree's newest date,
    /// does not change when another wrapper of the tree does, and that a
    /// `FileWrapper(serializedRepresentation:)` reads back as that date.
    /// `nil` if a lazily read file cannot be read.
    public var serializedRepresentation: Data? {
        let options = ArchiveWriteOptions(format: .tar)
        var data = Data()
        let name = preferredFilename ?? filename ?? "FileWrapper"
        do {
            try ArchiveWriter.write(self, rootName: name, options: options, name: name, undatedTime: FileTimestamp(seconds: 0)) {
                data.append(contentsOf: $0)
            }
            return data
        } catch {
            return nil
        }
    }

    /// A wrapper from a ``serializedRepresentation``: the tar's one top-level
    /// entry, or a directory holding its top-level entries if there are
    /// several. `nil` if the data is not such an archive.
    public convenience init?(serializedRepresentation data: Data) {
        guard let tree = try? ArchiveReader.fileWrapper(from: data, name: "serialized representation"),
              let entries = tree.fileWrappers
        else { return nil }
        let top = entries.count == 1 ? entries.first!.value : tree
        if top.isDirectory {
            self.init(directoryWithFileWrappers: top.fileWrappers ?? [:])
        } else if top.isSymbolicLink {
            self.init(symbolicLinkWithDestinationBytes: top.symbolicLinkDestinationBytes ?? [])
        } else {
            guard let contents = top.regularFileContents else { return nil }
            self.init(regularFileWithContents: contents)
        }
        attributes = top.attributes
        preferredFilename = entries.count == 1 ? entries.first!.key : nil
    }
}
