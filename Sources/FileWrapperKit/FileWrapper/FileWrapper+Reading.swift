import Foundation
import Glibc

extension FileWrapper {
    /// Reads the file, directory or symbolic link at `url` (a symlink is not
    /// followed). A directory's whole tree of kinds, names and attributes is
    /// read now; regular file contents on first access unless `.immediate`.
    ///
    /// - Parameters:
    ///   - url: The item to read.
    ///   - options: `.immediate` to read every file's contents now,
    ///     `.withoutMapping` to read rather than map them.
    /// - Throws: A `CocoaError` with Foundation's code, as Foundation
    ///   throws; its `fileWrapperError` names the path and the failing
    ///   call. A directory holding a name that is not UTF-8, or two names
    ///   that are one `String` key (NFC and NFD spellings), is refused,
    ///   never merged.
    public convenience init(url: URL, options: ReadingOptions = []) throws {
        self.init(kind: .regularFile)
        try FileWrapperError.reportingAsCocoa(url: url) {
            try TreeReader(options: options).read(Self.path(of: url), into: self)
        }
        adoptName(url.lastPathComponent)
    }

    /// Reads `url` again into this wrapper, in place: children whose names
    /// and kinds are still there stay the same objects, updated; the others
    /// are replaced or removed. Throws as ``init(url:options:)`` does.
    ///
    /// - Parameters:
    ///   - url: The item to read.
    ///   - options: `.immediate` to read every file's contents now,
    ///     `.withoutMapping` to read rather than map them.
    /// - Throws: A `CocoaError` whose `fileWrapperError` names the path and the
    ///   failing call, as ``init(url:options:)``.
    public func read(from url: URL, options: ReadingOptions = []) throws {
        try FileWrapperError.reportingAsCocoa(url: url) {
            try TreeReader(options: options).read(Self.path(of: url), into: self)
        }
    }

    /// Whether this wrapper still matches what is on disk at `url`: the same
    /// kinds and names throughout, the same symlink targets, and regular
    /// files that are the very files it was read from or written to (or, for
    /// contents made in memory, files with the same bytes).
    ///
    /// - Parameter url: The item to compare with.
    /// - Returns: `true` when they match; `false` when they differ or `url`
    ///   cannot be read.
    public func matchesContents(of url: URL) -> Bool {
        guard let disk = try? FileWrapper(url: url) else { return false }
        var pairs = [(self, disk)]
        while let (mine, theirs) = pairs.popLast() {
            guard mine.kind == theirs.kind else { return false }
            switch mine.kind {
            case .symbolicLink:
                guard mine.linkTarget == theirs.linkTarget else { return false }
            case .regularFile:
                guard let identity = theirs.contents.disk.first?.identity else { return false }
                if mine.contents.disk.contains(where: { $0.identity == identity }) { continue }
                guard mine.contents.disk.isEmpty, let data = mine.contents.data,
                      data.count == identity.size, (try? theirs.loadContents()) == data
                else { return false }
            case .directory:
                guard Set(mine.children.keys) == Set(theirs.children.keys) else { return false }
                for (key, child) in mine.children {
                    pairs.append((child, theirs.children[key]!))
                }
            }
        }
        return true
    }

    /// The file-system path of a file URL, `..` left for the kernel to
    /// resolve (through symlinks, as `ls` does), not removed as text.
    static func path(of url: URL) -> String {
        url.path
    }
}
