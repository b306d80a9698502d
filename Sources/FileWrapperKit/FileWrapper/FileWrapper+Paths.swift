import Foundation

/// Foundation's members that take a path rather than a URL, deprecated on
/// Apple's systems since macOS 10.10 and still listed there: kept, and
/// deprecated here too, so that old code compiles and is told what replaced
/// each. Each is the URL member of the same job, with the path as a file URL.
extension FileWrapper {
    /// Reads the item at `path`, as ``init(url:options:)`` does.
    ///
    /// - Parameter path: The item to read.
    @available(*, deprecated, message: "Use init(url:options:) instead")
    public convenience init?(path: String) {
        do {
            try self.init(url: URL(fileURLWithPath: path))
        } catch {
            return nil
        }
    }

    /// Whether this wrapper no longer matches the item at `path`, compared
    /// as Apple's documentation says: a regular file by modification date
    /// and permissions, a directory by its members, recursively, a
    /// symbolic link by its target (bytes). Names are compared as bytes.
    ///
    /// - Parameter path: The item to compare with.
    /// - Returns: `true` when they differ or `path` cannot be read.
    @available(*, deprecated, message: "Use matchesContents(of:) instead")
    public func needsToBeUpdated(fromPath path: String) -> Bool {
        guard let disk = try? FileWrapper(url: URL(fileURLWithPath: path)) else { return true }
        var pairs = [(self, disk)]
        while let (mine, theirs) = pairs.popLast() {
            guard mine.kind == theirs.kind else { return true }
            switch mine.kind {
            case .symbolicLink:
                guard mine.linkTarget == theirs.linkTarget else { return true }
            case .regularFile:
                guard let date = mine.attributes.modificationDate, date == theirs.attributes.modificationDate,
                      (mine.attributes.permissions ?? mine.defaultPermissions) == theirs.attributes.permissions
                else { return true }
            case .directory:
                guard Set(mine.children.keys.map { Array($0.utf8) }) == Set(theirs.children.keys.map { Array($0.utf8) })
                else { return true }
                for (key, child) in mine.children {
                    guard let other = theirs.children[key] else { return true }
                    pairs.append((child, other))
                }
            }
        }
        return false
    }

    /// Reads the item at `path` into this wrapper, in place, as
    /// ``read(from:options:)`` does, if ``needsToBeUpdated(fromPath:)``.
    ///
    /// - Parameter path: The item to read.
    /// - Returns: `true` when the wrapper was read again; `false` when it
    ///   did not need to be, or reading failed.
    @available(*, deprecated, message: "Use read(from:options:) instead")
    public func update(fromPath path: String) -> Bool {
        guard needsToBeUpdated(fromPath: path) else { return false }
        do {
            try read(from: URL(fileURLWithPath: path))
            return true
        } catch {
            return false
        }
    }

    /// Writes the wrapper to `path`, as ``write(to:options:originalContentsURL:)`` does.
    ///
    /// - Parameters:
    ///   - path: Where to write.
    ///   - atomically: Whether to write with `.atomic`.
    ///   - updateFilenames: Whether to write with `.withNameUpdating`.
    /// - Returns: `true` when written; `false` when the write failed, and
    ///   `path` is as it was.
    @available(*, deprecated, message: "Use write(to:options:originalContentsURL:) instead")
    public func write(toFile path: String, atomically: Bool, updateFilenames: Bool) -> Bool {
        var options: WritingOptions = []
        if atomically { options.insert(.atomic) }
        if updateFilenames { options.insert(.withNameUpdating) }
        do {
            try write(to: URL(fileURLWithPath: path), options: options, originalContentsURL: nil)
            return true
        } catch {
            return false
        }
    }

    /// Reads the item at `path` and adds it as a child under its name.
    ///
    /// - Parameter path: The item to add.
    /// - Returns: Its key; empty (never a key) when `path` cannot be read,
    ///   and nothing is added (Apple's returns nil through its non-optional
    ///   `String`).
    @available(*, deprecated, message: "Use addFileWrapper(_:) with FileWrapper(url:options:) instead")
    public func addFile(withPath path: String) -> String {
        precondition(kind == .directory, "addFile(withPath:) called on a wrapper that is not a directory")
        guard let child = try? FileWrapper(url: URL(fileURLWithPath: path)) else { return "" }
        return addFileWrapper(child)
    }

    /// Adds a symbolic link to `path` under `filename`, made unique if taken.
    ///
    /// - Parameters:
    ///   - path: The link's target.
    ///   - filename: The link's preferred filename.
    /// - Returns: Its key.
    @available(*, deprecated, message: "Use addFileWrapper(_:) with FileWrapper(symbolicLinkWithDestinationURL:) instead")
    public func addSymbolicLink(withDestination path: String, preferredFilename filename: String) -> String {
        let link = FileWrapper(symbolicLinkWithDestination: path)
        link.preferredFilename = filename
        return addFileWrapper(link)
    }
}
