/// Where a regular file's bytes come from when they are neither in memory
/// nor a file of their own on disk: a member of a zip that
/// FileWrapperArchive reads lazily (`ZipMemberSource`). The wrapper asks
/// for the bytes on first use (``FileWrapper/readRegularFileContents()``),
/// a writer streams them (``FileWrapper/forEachContentsBlock(blockSize:_:)``).
package protocol RegularFileSource: AnyObject, Sendable {
    /// The size in bytes, known without reading.
    var size: Int { get }

    /// Hands the bytes to `body` in order, in blocks of at most
    /// `blockSize` bytes, checking them as they come; throws when they are
    /// damaged or where they are read from changed, at the latest after
    /// the last block (so a caller keeps nothing until it returns).
    func forEachBlock(
        blockSize: Int, _ body: (UnsafeRawBufferPointer) throws(FileWrapperError) -> Void
    ) throws(FileWrapperError)
}

extension FileWrapper {
    /// A regular-file wrapper whose bytes `source` gives on first use.
    package convenience init(regularFileFrom source: any RegularFileSource) {
        self.init(kind: .regularFile)
        contents = RegularFileContents(source: source)
    }

    /// Where a regular file's bytes come from when they are neither in
    /// memory nor on disk of their own: set by the wrapper's maker, and
    /// kept until its contents are replaced (a writer copies what still
    /// comes from it as stored).
    package var regularFileSource: (any RegularFileSource)? {
        kind == .regularFile ? contents.source : nil
    }

    /// Points a regular file at another source of the same bytes (the
    /// member of the zip just written), keeping what is in memory.
    package func replaceRegularFileSource(with source: any RegularFileSource) {
        precondition(kind == .regularFile, "replaceRegularFileSource(with:) called on a wrapper that is not a regular file")
        contents.source = source
    }
}
