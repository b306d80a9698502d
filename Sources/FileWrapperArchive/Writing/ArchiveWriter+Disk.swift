import FileWrapperKit
import Foundation

extension ArchiveWriter {
    /// Packs what is on disk at `source` into the archive at `url`: a
    /// directory's contents become the archive's top-level entries (as
    /// document containers such as EPUB expect), a file or symlink becomes
    /// the one entry. The tree is read lazily and each file streamed in
    /// fixed-size blocks, so memory grows with the number of entries, not
    /// with their size.
    public static func write(contentsOf source: URL, to url: URL, options: ArchiveWriteOptions) throws {
        let wrapper = try FileWrapper(url: source, options: .withoutMapping)
        try write(wrapper, to: url, options: options)
    }
}
