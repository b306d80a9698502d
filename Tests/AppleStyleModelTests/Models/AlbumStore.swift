import FileWrapperDocument

// A package store written as apps for Apple's systems write one: an
// NSObject that presents the album package and reads and writes it
// through NSFileCoordinator, whose error comes back through an
// NSError out-parameter, outside any DocumentController.

final class AlbumStore: NSObject, NSFilePresenter {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()

    init(url: URL) {
        presentedItemURL = url
    }

    /// The package as it is on disk, read while no one writes it.
    func read() throws -> FileWrapper {
        var coordinationError: NSError?
        var result: Result<FileWrapper, any Error> = .failure(CocoaError(.fileReadUnknown))
        NSFileCoordinator(filePresenter: self).coordinate(readingItemAt: presentedItemURL!, options: [], error: &coordinationError) { url in
            result = Result { try FileWrapper(url: url, options: .immediate) }
        }
        if let coordinationError { throw coordinationError }
        return try result.get()
    }

    /// Replaces the package with `wrapper`, while no one else reads or writes it.
    func write(_ wrapper: FileWrapper) throws {
        var coordinationError: NSError?
        var writeError: (any Error)?
        NSFileCoordinator(filePresenter: self).coordinate(writingItemAt: presentedItemURL!, options: .forReplacing, error: &coordinationError) { url in
            do {
                try wrapper.write(to: url, options: .atomic, originalContentsURL: nil)
            } catch {
                writeError = error
            }
        }
        if let error = coordinationError ?? writeError { throw error }
    }
}
