import Foundation

extension FileWrapper {
    /// `length` bytes of a regular file's contents at each of `offsets`
    /// (fewer where it ends), sliced from memory or read from its file on
    /// disk with `pread`, for a writer that judges the whole file from
    /// samples before ``forEachContentsBlock(blockSize:_:)`` streams it
    /// (the zip writer's store or deflate); nil when the contents are
    /// neither in memory nor in a file on disk.
    package func contentsSamples(at offsets: [Int], length: Int) throws -> [[UInt8]]? {
        precondition(kind == .regularFile, "contentsSamples called on a wrapper that is not a regular file")
        let current = contents
        if let data = current.data {
            return offsets.map { offset in
                let start = data.startIndex + min(offset, data.count)
                return [UInt8](data[start..<min(start + length, data.endIndex)])
            }
        }
        guard !current.disk.isEmpty else { return nil }
        let (fd, file) = try current.openSource()
        defer { Syscall.close(fd) }
        let size = Int(file.identity.size)
        return try offsets.map { offset in
            try [UInt8](raceFreeUninitializedCapacity: max(0, min(length, size - offset))) { bytes, filled in
                filled = try Syscall.read(fd, at: offset, into: UnsafeMutableRawBufferPointer(bytes), path: { file.path })
            }
        }
    }
}
