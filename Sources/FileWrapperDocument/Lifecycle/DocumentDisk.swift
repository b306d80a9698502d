import FileWrapperKit
import Foundation
import Glibc

/// The work of a ``DocumentController`` that touches the disk or runs the
/// document's own reading and serializing code: all of it off the
/// controller (`@concurrent`), so neither the caller nor edits wait for it.
enum DocumentDisk {
    /// Reads `url` as `type` and makes the document from it. The stamp is
    /// taken first, so a change made while reading shows as a conflict at
    /// the next save rather than going unnoticed.
    @concurrent
    static func open<Document>(
        _ url: URL, as type: UTType, with serialization: DocumentSerialization<Document>
    ) async throws -> (document: Document, revision: DiskRevision) {
        let stamp = DiskStamp(of: url)
        let file = try DocumentStorage(type).read(url, as: type)
        let document: Document
        do {
            document = try serialization.read(FileDocumentReadConfiguration(contentType: type, file: file))
        } catch {
            throw DocumentError(.documentRefused, url: url, "cannot be opened as \(type.identifier): the document refused its contents", underlying: error)
        }
        return (document, DiskRevision(file: file, stamp: stamp))
    }

    /// Serializes `pending` and writes it to `url` as `type`, atomically.
    /// With `expected`, refuses to write unless what is at `url` still has
    /// that stamp (checked after serializing, just before writing).
    @concurrent
    static func save(
        _ pending: PendingSave, to url: URL, as type: UTType, previous: DiskRevision?, expected: DiskStamp?, inPlace: Bool
    ) async throws -> DiskRevision {
        let wrapper: FileWrapper
        do {
            wrapper = try pending.makeFileWrapper(FileDocumentWriteConfiguration(contentType: type, existingFile: previous?.file))
        } catch {
            throw DocumentError(.serializationFailed, url: url, "cannot be saved: the document could not make its file wrapper", underlying: error)
        }
        if inPlace, wrapper.attributes.permissions == nil, let permissions = previous?.file.attributes.permissions {
            wrapper.attributes.permissions = permissions
        }
        if let expected, DiskStamp(of: url) != expected {
            throw DocumentError(.changedOnDisk, url: url,
                                "changed on disk since it was opened or last saved (another program wrote it); it was not overwritten: revert to read it, or save with force to replace it")
        }
        try DocumentStorage(type).write(wrapper, to: url, as: type, originalContentsURL: inPlace ? url : nil)
        return DiskRevision(file: wrapper, stamp: DiskStamp(of: url))
    }

    /// Renames `url` to `newName` in its directory, never replacing what
    /// has that name (`renameat2(RENAME_NOREPLACE)`), then points the
    /// revision's lazily read files at the new place (a zip container's
    /// are in memory already). Should that re-read fail, the files it could
    /// not find fail with their own error when read.
    @concurrent
    static func rename(_ url: URL, to newName: String, revision: DiskRevision?, storage: DocumentStorage) async throws -> URL {
        let destination = url.deletingLastPathComponent().appendingPathComponent(newName)
        let parentPath = url.deletingLastPathComponent().path
        do {
            let parent = try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
            defer { Syscall.close(parent) }
            try Replacement.move(url.lastPathComponent, toNew: newName, in: parent, parentPath: parentPath)
        } catch {
            throw DocumentError(.writeFailed, url: url, "cannot be renamed to \"\(newName)\"", underlying: error)
        }
        if storage != .zipContainer, let file = revision?.file {
            try? file.read(from: destination)
        }
        return destination
    }
}
