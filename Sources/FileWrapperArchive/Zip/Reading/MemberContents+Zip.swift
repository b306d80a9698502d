import FileWrapperKit
import Foundation
import Glibc

extension MemberContents {
    /// Reads `members` from the zip at `url` by its central directory, as
    /// `unzip -p` does: the directory and the local headers, then each
    /// member alone (``ZipContainer``), no other member's data. Only for a
    /// file that begins with a zip local header (not a self-extracting
    /// one), whose directory the lazy reader takes and whose every local
    /// header agrees with it (``ZipCentralNames``); returns false, having
    /// handed nothing to `body`, for every other input, which the caller
    /// streams, so that such a zip gets the streamed read's rules and
    /// errors (a name given twice, a local header at odds with the
    /// directory, refused wherever the member asked for lies).
    static func readZipMembersByDirectory(
        _ members: [[UInt8]], in url: URL, options: ManifestReadOptions, _ body: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        guard options.archiveFormats.contains(.zip), startsWithLocalHeader(url.path) else { return false }
        let name = url.relativePath
        // The index and the check read the same zip apart: on two cores at
        // once. The index's side also finds the members and lets the rest
        // of its tree go, while the check, the longer, still runs.
        var files: Result<[FileWrapper], Error>?
        var agree = false
        WorkerThreads.perform(iterations: 2) { task in
            if task == 0 {
                guard let root = try? ZipContainerIndex(path: url.path, name: name, limits: options.limits).root else { return }
                files = Result { try members.map { try file(at: $0, in: root, archive: name) } }
            } else {
                agree = localHeadersAgree(url)
            }
        }
        guard let files, agree else { return false }
        for (index, file) in try files.get().enumerated() {
            try file.forEachContentsBlock { block in try body(index, block) }
        }
        return true
    }

    /// Whether `path` is a regular file (not followed if a link, never
    /// waited on if a FIFO) that begins with a zip local header's signature.
    private static func startsWithLocalHeader(_ path: String) -> Bool {
        guard let fd = try? Syscall.open(path, in: AT_FDCWD, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK, path: { path }) else { return false }
        defer { Syscall.close(fd) }
        guard let info = try? Syscall.status(of: fd, path: { path }), info.st_mode & S_IFMT == S_IFREG else { return false }
        var signature: UInt32 = 0
        return Syscall.invoke(.pread) { pread(fd, &signature, 4, 0) } == 4 && UInt32(littleEndian: signature) == ZipLocalHeader.signature
    }

    /// Whether the zip at `url` has a central directory and every local
    /// header agrees with it.
    private static func localHeadersAgree(_ url: URL) -> Bool {
        guard let fd = try? Syscall.open(url.path, in: AT_FDCWD, flags: O_RDONLY, path: { url.path }) else { return false }
        defer { Syscall.close(fd) }
        let names = try? ZipCentralNames(source: ArchiveReadSource(fd: fd, name: url.relativePath), archive: url.relativePath, recordingMembers: false)
        return names?.localHeadersAgree ?? false
    }

    /// The regular file at `member` (a normalized path) below `root`, its
    /// names compared as bytes; an error as ``fileGroup(of:member:archive:)``
    /// gives them when it is missing or not a file.
    private static func file(at member: [UInt8], in root: FileWrapper, archive name: String) throws -> FileWrapper {
        let display = PathDisplay.text(member)
        var wrapper = root
        for component in member.split(separator: UInt8(ascii: "/")) {
            // A key found is the one the tree holds for every canonically
            // equivalent name; the member is there only if its bytes match.
            guard wrapper.isDirectory, let children = wrapper.fileWrappers, let index = children.index(forKey: String(decoding: component, as: UTF8.self)),
                  children[index].key.utf8.elementsEqual(component)
            else {
                throw ManifestError(file: name, entry: display, message: "the archive has no such member")
            }
            wrapper = children[index].value
        }
        if wrapper.isDirectory {
            throw ManifestError(file: name, entry: display, message: "the member is a directory")
        }
        if wrapper.isSymbolicLink {
            throw ManifestError(file: name, entry: display, message:
                "the member is a symbolic link (to \"\(PathDisplay.text(wrapper.symbolicLinkDestinationBytes ?? []))\"), which is not followed")
        }
        return wrapper
    }
}
