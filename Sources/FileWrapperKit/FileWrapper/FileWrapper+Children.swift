import Foundation

/// A directory's children: adding, removing and finding them, with keys made
/// unique the way Foundation makes them.
extension FileWrapper {
    /// A directory's children by key. Asking a file or a symlink for its
    /// children is a programmer error, as in Foundation.
    public var fileWrappers: [String: FileWrapper]? {
        precondition(kind == .directory, "fileWrappers asked of a wrapper that is not a directory")
        return children
    }

    /// Adds `child` under its preferred filename, made unique if the name is
    /// taken (`"1__#$!@%!#__name"`, then 2, ...), and returns the key.
    ///
    /// - Parameter child: The wrapper to add; it must have a preferred filename.
    /// - Returns: The key `child` is held under.
    @discardableResult
    public func addFileWrapper(_ child: FileWrapper) -> String {
        precondition(kind == .directory, "addFileWrapper(_:) called on a wrapper that is not a directory")
        guard let preferred = child.preferredFilename, !preferred.isEmpty else {
            preconditionFailure("addFileWrapper(_:) needs a child with a preferredFilename")
        }
        let key = uniqueKey(for: preferred)
        children[key] = child
        child.addParent(self)
        return key
    }

    /// Adds a regular file holding `data` and returns its key.
    ///
    /// - Parameters:
    ///   - data: The file's contents.
    ///   - fileName: Its preferred filename.
    /// - Returns: The key the new file is held under.
    @discardableResult
    public func addRegularFile(withContents data: Data, preferredFilename fileName: String) -> String {
        let child = FileWrapper(regularFileWithContents: data)
        child.preferredFilename = fileName
        return addFileWrapper(child)
    }

    /// Removes `child`, found by identity; does nothing if it is not a child.
    ///
    /// - Parameter child: The child to remove.
    public func removeFileWrapper(_ child: FileWrapper) {
        precondition(kind == .directory, "removeFileWrapper(_:) called on a wrapper that is not a directory")
        guard let key = keyForChildFileWrapper(child) else { return }
        children[key] = nil
        if keyForChildFileWrapper(child) == nil {
            child.removeParent(self)
        }
    }

    /// The key under which `child`, compared by identity, is held.
    ///
    /// - Parameter child: The wrapper to look for.
    /// - Returns: Its key; nil when `child` is not a child of this directory.
    public func keyForChildFileWrapper(_ child: FileWrapper) -> String? {
        precondition(kind == .directory, "keyForChildFileWrapper(_:) called on a wrapper that is not a directory")
        return children.first { $0.value === child }?.key
    }

    /// `name` if no child holds it, else the first of Foundation's unique
    /// spellings that is free.
    func uniqueKey(for name: String, ignoring child: FileWrapper? = nil) -> String {
        func isFree(_ key: String) -> Bool {
            guard let holder = children[key] else { return true }
            return holder === child
        }
        if isFree(name) { return name }
        var number = 1
        while !isFree("\(number)__#$!@%!#__\(name)") {
            number += 1
        }
        return "\(number)__#$!@%!#__\(name)"
    }

    /// Moves `child` to a key made from its new preferred filename.
    func rekey(_ child: FileWrapper, preferredFilename: String) {
        guard let oldKey = keyForChildFileWrapper(child) else { return }
        let newKey = uniqueKey(for: preferredFilename, ignoring: child)
        guard newKey != oldKey else { return }
        children[oldKey] = nil
        children[newKey] = child
    }

    func addParent(_ parent: FileWrapper) {
        parents.removeAll { $0.wrapper == nil }
        if !parents.contains(where: { $0.wrapper === parent }) {
            parents.append(WeakParent(wrapper: parent))
        }
    }

    func removeParent(_ parent: FileWrapper) {
        parents.removeAll { $0.wrapper == nil || $0.wrapper === parent }
    }
}
