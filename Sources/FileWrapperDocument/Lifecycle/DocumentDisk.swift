import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc

/// The work of a ``DocumentController`` that touches the disk or runs the
/// document's own reading and serializing code: all of it off the
/// controller, so neither the caller nor edits wait for it, and outside
/// Swift's cooperative pool (see ``onBackgroundThread(_:)``).
enum DocumentDisk {
    /// Reads `url` as `type` and makes the document from it, holding the
    /// document's shared lock (``DocumentLock``): the stamp, the tree and
    /// what the document's own reader reads are of one version, which no
    /// save replaces meanwhile.
    static func open<Document>(
        _ url: URL, as type: UTType, with serialization: DocumentSerialization<Document>
    ) async throws -> (document: Document, revision: DiskRevision) {
        try await onBackgroundThread { try read(url, as: type, with: serialization) }
    }

    private static func read<Document>(
        _ url: URL, as type: UTType, with serialization: DocumentSerialization<Document>
    ) throws -> (document: Document, revision: DiskRevision) {
        try DocumentLock.holding(.shared, of: url) { _ in try readHoldingLock(url, as: type, with: serialization) }
    }

    /// Reads `url` as `type` and makes the document from it; the caller
    /// holds the document's lock.
    static func readHoldingLock<Document>(
        _ url: URL, as type: UTType, with serialization: DocumentSerialization<Document>
    ) throws -> (document: Document, revision: DiskRevision) {
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
    /// that stamp. The check, the swap and the new stamp are made holding
    /// the document's exclusive lock (``DocumentLock``, taken after
    /// serializing), so no other save comes between them. The new stamp
    /// goes into `recording` too before the lock is let go, so that a
    /// ``DiskWatcher`` that looks at the swap's events sees it as its
    /// controller's own.
    ///
    /// A save in place whose `versions` keep versions first keeps what is
    /// at `url` as a version (``keepVersion(of:)``), after the check and
    /// before writing; should that fail, nothing is written and the save
    /// fails, and should the write fail, the version just kept is removed.
    /// After the save, versions the policy does not keep are removed.
    static func save(
        _ pending: PendingSave, to url: URL, as type: UTType, previous: DiskRevision?, expected: DiskStamp?, inPlace: Bool,
        recording: Locked<DiskStamp?>?, versions: DocumentVersionPolicy = .off
    ) async throws -> DiskRevision {
        try await onBackgroundThread {
            try write(pending, to: url, as: type, previous: previous, expected: expected, inPlace: inPlace, recording: recording,
                      versions: versions)
        }
    }

    private static func write(
        _ pending: PendingSave, to url: URL, as type: UTType, previous: DiskRevision?, expected: DiskStamp?, inPlace: Bool,
        recording: Locked<DiskStamp?>?, versions: DocumentVersionPolicy
    ) throws -> DiskRevision {
        let wrapper: FileWrapper
        do {
            wrapper = try pending.makeFileWrapper(FileDocumentWriteConfiguration(contentType: type, existingFile: previous?.file))
        } catch {
            throw DocumentError(.serializationFailed, url: url, "cannot be saved: the document could not make its file wrapper", underlying: error)
        }
        if inPlace, wrapper.attributes.permissions == nil, let permissions = previous?.file.attributes.permissions {
            wrapper.attributes.permissions = permissions
        }
        return try DocumentLock.holding(.exclusive, of: url) { held in
            if let expected, DiskStamp(of: url) != expected {
                throw DocumentError(.changedOnDisk, url: url,
                                    "changed on disk since it was opened or last saved (another program wrote it); it was not overwritten: revert to read it, or save with force to replace it" + held.ordering)
            }
            let kept = versions.keepsVersions && inPlace ? try keepVersion(of: url) : nil
            do {
                try DocumentStorage(type).write(wrapper, to: url, as: type, originalContentsURL: inPlace ? url : nil)
            } catch {
                if let kept { try? VersionStore.remove(kept) }
                throw error
            }
            let stamp = DiskStamp(of: url)
            recording?.withLock { $0 = stamp }
            versions.prune(ofDocumentAt: url)
            return DiskRevision(file: wrapper, stamp: stamp)
        }
    }

    /// Keeps what is at `url` as a version (``VersionStore/keep(documentAt:now:)``),
    /// holding the document's exclusive lock; nothing there, nothing kept.
    /// A failure is the save's: the document is left as it was, because a
    /// save that went on would remove the version it could not keep.
    static func keepVersion(of url: URL) throws -> VersionStore.Entry? {
        var info = stat()
        guard Syscall.invoke(.lstat, { lstat(url.path, &info) }) == 0 else { return nil }
        do {
            return try VersionStore.keep(documentAt: url)
        } catch {
            let folder = VersionStore.folderName(for: url.lastPathComponent)
            throw DocumentError(.writeFailed, url: url,
                                "cannot be saved: the version it would replace could not be kept in \(folder) (the controller keeps versions), so nothing was written", underlying: error)
        }
    }

    /// Renames `url` to `newName` in its directory, never replacing what
    /// has that name (`renameat2(RENAME_NOREPLACE)`), and its versions
    /// folder with it (``VersionStore``), holding the
    /// document's exclusive lock so that no save or read is midway, then points the
    /// revision's lazily read files at the new place (a bundle's files, a
    /// zip container's members). Should that re-read fail, the files it
    /// could not find fail with their own error when read.
    static func rename(_ url: URL, to newName: String, revision: DiskRevision?, storage: DocumentStorage) async throws -> URL {
        try await onBackgroundThread { try move(url, to: newName, revision: revision, storage: storage) }
    }

    private static func move(_ url: URL, to newName: String, revision: DiskRevision?, storage: DocumentStorage) throws -> URL {
        let destination = url.deletingLastPathComponent().appendingPathComponent(newName)
        let parentPath = url.deletingLastPathComponent().path
        try DocumentLock.holding(.exclusive, of: url) { _ in
            do {
                let parent = try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
                defer { Syscall.close(parent) }
                try Replacement.move(url.lastPathComponent, toNew: newName, in: parent, parentPath: parentPath)
                // The versions follow, unless the new name has versions of its own (which stay).
                try? Replacement.move(VersionStore.folderName(for: url.lastPathComponent), toNew: VersionStore.folderName(for: newName),
                                      in: parent, parentPath: parentPath)
            } catch {
                throw DocumentError(.writeFailed, url: url, "cannot be renamed to \"\(newName)\"", underlying: error)
            }
        }
        if let file = revision?.file {
            if storage == .zipContainer {
                ZipContainer.follow(file, movedTo: destination)
            } else {
                try? file.read(from: destination)
            }
        }
        return destination
    }

    /// Runs `work` on a thread outside Swift's cooperative pool and waits
    /// for it without holding a thread of that pool, which has only as many
    /// as cores. A document's reading and serializing are its own
    /// synchronous code, and a save of a large package writes for seconds:
    /// on the pool they would stall every other task of the process
    /// meanwhile. SwiftUI, too, serializes on a background thread.
    ///
    /// A serial queue of its own, because libdispatch gives such a queue a
    /// thread at once (it overcommits); a global queue shares the pool's
    /// count of threads on Linux, and waits a second, at times far longer, for
    /// a thread when the pool's are blocked.
    static func onBackgroundThread<Value: Sendable>(
        _ work: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        // The work and its result pass through `handover`, not the queue's
        // block, which is released on its thread after it returns: what
        // the block held (the work's captures, a document, the file
        // wrappers written or read) could then outlive the caller's last
        // reference, and a program that closes its document and exits
        // would exit with them alive.
        let handover = Locked<Handover<Value>>(Handover(work: work))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue(label: "FileWrapperDocument.DocumentDisk").async {
                run(handingOver: handover)
                continuation.resume()
            }
        }
        return try handover.withLock { $0.result.take()! }.get()
    }

    /// A work, until it runs, then its result.
    private struct Handover<Value> {
        var work: (@Sendable () throws -> Value)?
        var result: Result<Value, any Error>?
    }

    /// Runs the work in `handover` and leaves its result there. The work,
    /// and what it captured, is gone when this returns.
    private static func run<Value>(handingOver handover: Locked<Handover<Value>>) {
        let work = handover.withLock { $0.work.take()! }
        let result = Result(catching: work)
        handover.withLock { $0.result = result }
    }
}
