import Foundation

/// Foundation's error out-parameter, which swift-corelibs-foundation does
/// not declare: `var error: NSError?` passed as `&error`.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// Foundation's file coordinator, which swift-corelibs-foundation does not
/// have, over the locks that ``DocumentController`` takes
/// (docs/coordination.md): a coordinated write of an item takes turns with
/// every save, read and other coordinated write of it, in any process of
/// the machine; coordinated reads of it go on together, and never see a
/// save midway. Code written for Apple's systems compiles as it is:
///
/// ```swift
/// var error: NSError?
/// NSFileCoordinator(filePresenter: nil).coordinate(writingItemAt: url, options: .forReplacing, error: &error) { url in
///     try? wrapper.write(to: url, options: .atomic, originalContentsURL: nil)
/// }
/// if let error { throw error }
/// ```
///
/// The accessor runs on the calling thread, which waits for the lock as
/// Foundation's does. Unlike Foundation's, coordinations do not nest: a
/// coordinated write inside an accessor for the same item, or a
/// ``DocumentController`` saving it from there, waits for itself. Options
/// are accepted and change nothing: every read sees one whole version, and
/// every write excludes everyone else.
open class NSFileCoordinator: NSObject {
    /// Foundation's reading options.
    public struct ReadingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
        public static let forUploading = ReadingOptions(rawValue: 1 << 3)
    }

    /// Foundation's writing options.
    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }

    /// The presenter whose own changes this coordinator makes: a
    /// coordinated write is not told to it when it is registered
    /// (``addFilePresenter(_:)``). Not public: Foundation's coordinator
    /// does not show it.
    let filePresenter: (any NSFilePresenter)?

    /// A coordinator whose coordinated writes are the changes of
    /// `filePresenter`, as Foundation's is.
    ///
    /// - Parameter filePresenter: The presenter that makes the changes (not
    ///   told of them once registered), or nil.
    public init(filePresenter: (any NSFilePresenter)?) {
        self.filePresenter = filePresenter
    }

    /// Runs `reader` with `url` holding the item's shared lock: no save or
    /// coordinated write of it runs meanwhile. On failure to take the lock
    /// `reader` does not run and `outError` holds why.
    ///
    /// - Parameters:
    ///   - url: The item to read.
    ///   - options: Foundation's reading options; accepted, and change nothing.
    ///   - outError: Set to the error when the lock cannot be taken.
    ///   - reader: Reads the item; it gets `url`, standardized.
    open func coordinate(
        readingItemAt url: URL, options: ReadingOptions = [], error outError: NSErrorPointer, byAccessor reader: (URL) -> Void
    ) {
        coordinate(.shared, url, outError, reader)
    }

    /// Runs `writer` with `url` holding the item's exclusive lock: no
    /// other save, read or coordinated access of it runs meanwhile. On
    /// failure to take the lock `writer` does not run and `outError` holds why.
    ///
    /// - Parameters:
    ///   - url: The item to write.
    ///   - options: Foundation's writing options; accepted, and change nothing.
    ///   - outError: Set to the error when the lock cannot be taken.
    ///   - writer: Writes the item; it gets `url`, standardized.
    open func coordinate(
        writingItemAt url: URL, options: WritingOptions = [], error outError: NSErrorPointer, byAccessor writer: (URL) -> Void
    ) {
        coordinate(.exclusive, url, outError, writer)
    }

    private func coordinate(_ mode: DocumentLock.Mode, _ url: URL, _ outError: NSErrorPointer, _ accessor: (URL) -> Void) {
        let url = url.standardizedFileURL
        do {
            try DocumentLock.holding(mode, of: url) { _ in
                accessor(url)
                if mode == .exclusive { recordOwnWrite(of: url) }
            }
        } catch {
            outError?.pointee = NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileLocking.rawValue, userInfo: [
                NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: ErrorChain.describe(error),
            ])
        }
    }
}
