import CFileSystem
import Foundation
import Glibc

extension FileWrapper {
    /// Writes this wrapper and everything below it to `url`, through
    /// directory descriptors so that no symlink can redirect a write.
    ///
    /// - The new item is built beside `url` under a temporary name and
    ///   swapped into place (`renameat2` with `RENAME_EXCHANGE`), so an
    ///   existing item is replaced only once the new one is complete. With
    ///   `.atomic` the replacement is ``Durability/synced``: the new item
    ///   reaches the disk (`syncfs`) before the swap and the swap after it
    ///   (`fsync` of the parent): killed or cut off at any instant, `url`
    ///   holds the old item or the new one, whole. Without it, and with
    ///   nothing at `url`, the item is written in place.
    /// - Temporaries that earlier saves of `url` left behind when their
    ///   process died are removed first.
    /// - With `originalContentsURL`, the regular files that were read from
    ///   there and have not changed since are hard-linked instead of
    ///   written (copied where the file system refuses a link).
    /// - With `.withNameUpdating`, the wrapper and its descendants take the
    ///   names they were written under as their `filename`.
    ///
    /// - Parameters:
    ///   - url: Where to write.
    ///   - options: `.atomic` for a synced replacement, `.withNameUpdating`
    ///     to update filenames.
    ///   - originalContentsURL: Where this wrapper was read from, to link
    ///     its unchanged files; nil to write every file.
    /// - Throws: A `CocoaError` with Foundation's code, as Foundation
    ///   throws; its `fileWrapperError` names the path and the failing
    ///   call. What was written is removed and `url` is left as it was.
    public func write(to url: URL, options: WritingOptions = [], originalContentsURL: URL?) throws {
        try FileWrapperError.reportingAsCocoa(url: url) {
            try save(to: url, options: options, originalContentsURL: originalContentsURL)
        }
    }

    private func save(to url: URL, options: WritingOptions, originalContentsURL: URL?) throws {
        let path = Self.path(of: url)
        let (parentPath, name) = TreeReader.split(path)
        guard !name.isEmpty, name != ".", name != ".." else {
            throw FileWrapperError(.invalidName, path: path, detail: "the destination must name a file, not a directory's \".\" or \"..\"")
        }
        let parent = try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
        defer { Syscall.close(parent) }

        // A previous revision that cannot be opened only means nothing is linked.
        var original: TreeWriter.Original?
        if let originalContentsURL {
            let (originalParentPath, originalName) = TreeReader.split(Self.path(of: originalContentsURL))
            if let directory = try? Syscall.open(originalParentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { originalParentPath }) {
                original = TreeWriter.Original(directory: directory, name: originalName)
            }
        }
        defer { if let original { Syscall.close(original.directory) } }

        let replacement = PendingReplacement(of: name, in: parent, parentPath: parentPath)
        let exists = (try? Syscall.status(of: name, in: parent, path: { path })) != nil
        let atomic = options.contains(.atomic)
        let writer = TreeWriter(finalPath: path)
        let outcome: TreeWriter.Outcome
        if atomic || exists {
            do {
                outcome = try writer.write(self, as: replacement.temporary, in: parent, parentPath: parentPath, original: original)
                try replacement.commit(atomic ? .synced : .deferred)
            } catch {
                replacement.discard()
                throw error
            }
        } else {
            outcome = try writer.write(self, as: name, in: parent, parentPath: parentPath, original: original)
        }

        for (wrapper, file) in outcome.files {
            wrapper.contents.remember(file)
        }
        if options.contains(.withNameUpdating) {
            filename = name
            for (wrapper, childName) in outcome.names {
                wrapper.filename = childName
            }
        }
    }
}
