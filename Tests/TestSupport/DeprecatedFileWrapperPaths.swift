import FileWrapperKit

// Foundation's deprecated path members of FileWrapper, restated, so that
// tests call them without warnings (the build treats warnings as errors):
// a deprecated member used as a protocol's witness warns nowhere.

/// The deprecated path members of `FileWrapper`.
public protocol DeprecatedFileWrapperPaths: AnyObject {
    func needsToBeUpdated(fromPath path: String) -> Bool
    func update(fromPath path: String) -> Bool
    func write(toFile path: String, atomically: Bool, updateFilenames: Bool) -> Bool
    func addFile(withPath path: String) -> String
    func addSymbolicLink(withDestination path: String, preferredFilename filename: String) -> String
}

extension FileWrapper: DeprecatedFileWrapperPaths {}

/// `FileWrapper(path:)`, called from a deprecated witness.
private protocol DeprecatedPathInit {
    static func wrapper(atPath path: String) -> FileWrapper?
}

private enum DeprecatedPathInitCall: DeprecatedPathInit {
    @available(*, deprecated)
    static func wrapper(atPath path: String) -> FileWrapper? { FileWrapper(path: path) }
}

/// Reads `path` with the deprecated `FileWrapper(path:)`.
///
/// - Parameter path: The item to read.
/// - Returns: The wrapper; nil when `path` cannot be read.
public func fileWrapper(atPath path: String) -> FileWrapper? {
    (DeprecatedPathInitCall.self as any DeprecatedPathInit.Type).wrapper(atPath: path)
}
