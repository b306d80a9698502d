import FileWrapperKit
import Foundation

/// Adds, replaces and removes members of an existing zip, then writes it
/// again in one atomic rewrite (ZIPFoundation's `Archive` update use
/// case): the members left alone are copied as they are stored, never
/// inflated or deflated (``ZipContainer/write(_:to:options:)``), keep
/// their order, and new members go at the end.
///
///     let editor = try ZipArchiveEditor(contentsOf: url)
///     try editor.setContents(Data("v2".utf8), at: "notes/today.txt")
///     try editor.removeMember(at: "old.txt")
///     try editor.commit()
///
/// Nothing changes on disk before ``commit(options:)``; a failed commit
/// leaves the zip as it was.
public final class ZipArchiveEditor {
    /// The zip edited, which ``commit(options:)`` replaces.
    public let url: URL
    /// The zip's tree as it will be written, read lazily
    /// (``ZipContainer/fileWrapper(contentsOf:limits:)``); editing it
    /// directly works too.
    public let root: FileWrapper
    private let limits: ArchiveReadLimits

    /// Opens the zip at `url`, reading its central directory only.
    ///
    /// - Parameters:
    ///   - url: The zip.
    ///   - limits: What the zip and its members may hold.
    /// - Throws: As ``ZipContainer/fileWrapper(contentsOf:limits:)``.
    public init(contentsOf url: URL, limits: ArchiveReadLimits = .unpacking) throws {
        self.url = url
        self.limits = limits
        root = try ZipContainer.fileWrapper(contentsOf: url, limits: limits)
    }

    /// The member at `path` (`a/b.txt`), nil when there is none.
    ///
    /// - Parameter path: The member's path, `/` between names.
    /// - Returns: The member's wrapper; nil when there is none.
    /// - Throws: ``ArchiveError`` (``ArchiveError/Code/unsafePath`` or
    ///   ``ArchiveError/Code/limitExceeded``) when `path` is not a path an
    ///   archive may hold, or names the root.
    public func member(at path: String) throws -> FileWrapper? {
        var current = root
        for name in try names(of: path) {
            guard let next = current.fileWrappers?[name.text] else { return nil }
            current = next
        }
        return current
    }

    /// Makes the member at `path` a regular file holding `contents`: adds
    /// it, with the directories on its way that are missing, or replaces
    /// what is there. `permissions` and `modificationDate` default to 0644
    /// and the time of the commit.
    ///
    /// - Parameters:
    ///   - contents: The file's bytes.
    ///   - path: The member's path, `/` between names.
    ///   - permissions: Its permission bits; nil for 0644.
    ///   - modificationDate: Its time; nil for the time of the commit.
    /// - Throws: ``ArchiveError`` when `path` is not a path an archive may
    ///   hold; `FileWrapperError` (`FileWrapperError.Code.notADirectory`)
    ///   when a name on its way is not a directory.
    public func setContents(
        _ contents: Data, at path: String, permissions: UInt16? = nil, modificationDate: FileTimestamp? = nil
    ) throws {
        let names = try names(of: path)
        var parent = root
        for name in names.dropLast() {
            if let next = parent.fileWrappers?[name.text] {
                guard next.isDirectory else {
                    throw FileWrapperError(.notADirectory, path: url.relativePath, detail: "member \"\(path)\": \"\(name.text)\" on its way is not a directory")
                }
                parent = next
            } else {
                let directory = FileWrapper(directoryWithFileWrappers: [:])
                directory.preferredFilename = name.text
                parent.addFileWrapper(directory)
                parent = directory
            }
        }
        let name = names.last!.text
        if let old = parent.fileWrappers?[name] { parent.removeFileWrapper(old) }
        let file = FileWrapper(regularFileWithContents: contents)
        file.preferredFilename = name
        file.attributes = FileWrapper.Attributes(permissions: permissions, modificationDate: modificationDate)
        parent.addFileWrapper(file)
    }

    /// Removes the member at `path`, and all a directory holds; throws
    /// when there is none.
    ///
    /// - Parameter path: The member's path, `/` between names.
    /// - Throws: `FileWrapperError` (`FileWrapperError.Code.noSuchFile`)
    ///   when there is no member at `path`; ``ArchiveError`` when `path` is
    ///   not a path an archive may hold.
    public func removeMember(at path: String) throws {
        let names = try names(of: path)
        let parentPath = names.dropLast().map(\.text).joined(separator: "/")
        guard let parent = parentPath.isEmpty ? root : try member(at: parentPath), let member = parent.fileWrappers?[names.last!.text] else {
            throw FileWrapperError(.noSuchFile, path: url.relativePath, detail: "the archive has no member \"\(path)\" to remove")
        }
        parent.removeFileWrapper(member)
    }

    /// Writes the edited zip over ``url``, atomically; the members not
    /// touched are copied as stored. The editor stays usable: its members
    /// then read from the zip written.
    ///
    /// - Parameter options: How to write the members that are not copied.
    /// - Throws: As ``ZipContainer/write(_:to:options:)``; the zip is left as
    ///   it was.
    public func commit(options: ArchiveWriteOptions = ArchiveWriteOptions(format: .zip)) throws {
        try ZipContainer.write(root, to: url, options: options)
    }

    /// The names of `path`, checked as an archive's paths are (``EntryPath``).
    private func names(of path: String) throws -> [EntryName] {
        let names = try EntryPath(path, archive: url.relativePath, limits: limits).components
        guard !names.isEmpty else {
            throw ArchiveError(.unsafePath, archive: url.relativePath, entry: path, message: "the path names the archive's root, not a member")
        }
        return names
    }
}
