import Foundation
import Glibc

/// A regular file's bytes: in memory, on disk, in another source (a zip
/// member, ``RegularFileSource``), or several of these.
struct RegularFileContents {
    /// The bytes, once read or when given.
    var data: Data?
    /// Files on disk that hold exactly these bytes, newest first: where a
    /// lazy wrapper reads from, and what an incremental save may hard-link.
    private(set) var disk: [DiskFile] = []
    /// Whether a lazy read may map the file instead of copying it.
    var mayMap = true
    /// Where the bytes are read from when there is no file on disk.
    var source: (any RegularFileSource)?

    init(data: Data? = nil) {
        self.data = data
    }

    init(source: any RegularFileSource) {
        self.source = source
    }

    init(disk file: DiskFile, mayMap: Bool) {
        disk = [file]
        self.mayMap = mayMap
    }

    /// The size in bytes, if known without reading.
    var size: Int? { data?.count ?? disk.first.map { Int($0.identity.size) } ?? source?.size }

    /// Records that `file` now holds these bytes too. Two records are kept,
    /// so that a wrapper whose newest copy was deleted still finds its bytes.
    mutating func remember(_ file: DiskFile) {
        let path = file.path
        disk.removeAll { $0.identity == file.identity && $0.path == path }
        disk.insert(file, at: 0)
        if disk.count > 2 { disk.removeLast(disk.count - 2) }
    }

    /// Opens the newest file on disk that still holds these bytes.
    func openSource() throws(FileWrapperError) -> (fd: CInt, file: DiskFile) {
        var firstError: FileWrapperError?
        for file in disk {
            do throws(FileWrapperError) {
                return (try file.open(), file)
            } catch {
                firstError = firstError ?? error
            }
        }
        throw firstError ?? FileWrapperError(.noSuchFile, path: "<memory>", detail: "the contents were never read from disk")
    }

    /// The source to read from: there is no file on disk.
    var sourceOnly: (any RegularFileSource)? { disk.isEmpty ? source : nil }

    /// The bytes, read from disk or the source on first access and kept.
    mutating func load() throws(FileWrapperError) -> Data {
        if let data { return data }
        if let source = sourceOnly {
            var loaded = Data(capacity: source.size)
            try source.forEachBlock(blockSize: 1 << 20) { block throws(FileWrapperError) in loaded.append(contentsOf: block) }
            data = loaded
            return loaded
        }
        let (fd, file) = try openSource()
        defer { Syscall.close(fd) }
        let loaded = try FileContentsReader.read(fd, size: Int(file.identity.size), mayMap: mayMap, path: { file.path })
        data = loaded
        return loaded
    }
}

extension FileWrapper {
    /// A regular file's contents, read from disk on first access; `nil` for
    /// other kinds and when reading fails (``readRegularFileContents()``
    /// says why). Safe from several threads at once.
    public var regularFileContents: Data? {
        guard kind == .regularFile else { return nil }
        return try? loadContents()
    }

    /// A regular file's contents, read from disk on first access, or the
    /// error that names the file and the failing call. Safe from several
    /// threads at once.
    ///
    /// - Returns: The contents.
    /// - Throws: ``FileWrapperError`` when opening, mapping or reading the
    ///   file fails.
    public func readRegularFileContents() throws -> Data {
        precondition(kind == .regularFile, "readRegularFileContents() called on a wrapper that is not a regular file")
        return try loadContents()
    }

    /// Whether a regular file's bytes are in memory (a test hook: proves
    /// that opening a package reads no file contents).
    package var isRegularFileContentsLoaded: Bool { contents.data != nil }

    /// Replaces a regular file's contents: an archive's hard link may carry
    /// contents for the files read before it (FileWrapperArchive's `LinkGroups`).
    package func replaceRegularFileContents(with data: Data) {
        precondition(kind == .regularFile, "replaceRegularFileContents(with:) called on a wrapper that is not a regular file")
        contents = RegularFileContents(data: data)
    }
}

/// Reads a whole open regular file.
enum FileContentsReader {
    /// Files from this size on are mapped unless mapping is refused.
    static let mappingThreshold = 64 * 1024

    /// Reads `size` bytes from `fd`, mapping them when allowed and worth it.
    static func read(_ fd: CInt, size: Int, mayMap: Bool, path: Syscall.Path) throws(FileWrapperError) -> Data {
        if mayMap, size >= mappingThreshold,
           let address = Glibc.mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED {
            return Data(bytesNoCopy: address, count: size, deallocator: .custom { pointer, count in
                Glibc.munmap(pointer, count)
            })
        }
        var data = Data(count: size)
        let filled = try data.withMutableBytes { buffer throws(FileWrapperError) in try Syscall.read(fd, into: buffer, path: path) }
        guard filled == size else {
            throw FileWrapperError(.changedOnDisk, path: path(), detail: "the file became shorter while it was read")
        }
        return data
    }
}

extension FileWrapper {
    /// A regular file's size in bytes, known without reading its contents.
    package var regularFileSize: Int? {
        kind == .regularFile ? contents.size : nil
    }

    /// Hands a regular file's contents to `body` in blocks of at most
    /// `blockSize` bytes, without keeping them: contents in memory are
    /// sliced, contents on disk or in a source are read block by block, so that archiving
    /// a multi-GiB file costs one block of memory. Throws if the file on
    /// disk changed before or while it was read.
    package func forEachContentsBlock(
        blockSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        precondition(kind == .regularFile, "forEachContentsBlock called on a wrapper that is not a regular file")
        if let data = contents.data {
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(offset + blockSize, bytes.count)
                    try body(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                }
            }
            return
        }
        if let source = contents.sourceOnly {
            // The body's own error comes back as it was, not as the source's.
            var bodyError: (any Error)?
            do throws(FileWrapperError) {
                try source.forEachBlock(blockSize: blockSize) { block throws(FileWrapperError) in
                    do {
                        try body(block)
                    } catch {
                        bodyError = error
                        throw FileWrapperError(.ioError, path: "<reader>", detail: "stopped by its reader")
                    }
                }
            } catch {
                throw bodyError ?? error
            }
            return
        }
        let (fd, file) = try contents.openSource()
        defer { Syscall.close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        var remaining = Int(file.identity.size)
        while remaining > 0 {
            let count = try Syscall.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(blockSize, remaining)]), path: { file.path })
            guard count > 0 else {
                throw FileWrapperError(.changedOnDisk, path: file.path, detail: "the file became shorter while it was read")
            }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            remaining -= count
        }
        try file.identity.checkUnchanged(fd, path: { file.path })
    }
}
