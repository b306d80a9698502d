/// An entry of a tree on disk that could not be read whole: a folder that
/// could not be opened or listed, a file that could not be opened or read
/// to hash. A manifest made with ``DiskManifestReader/keepsUnreadable``
/// (what `wrapinspect dump` shows) lists everything else and names each
/// of these with its error, as `ls -R` and `find` go on past them.
package struct UnreadableEntry: Sendable, Hashable {
    /// Its path below the tree's root.
    package var path: [UInt8]
    /// Why it could not be read: the system call and its `errno`.
    package var error: FileWrapperError
}
