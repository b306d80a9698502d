import Foundation

extension DocumentController {
    /// Runs `operation` when no other operation that uses the file is
    /// running, in the order called. The actor alone would let a second
    /// save start while the first awaits its write; this queue does not.
    /// Edits (``update(_:)``) do not wait for it.
    func exclusively<Result: Sendable>(_ operation: () async throws -> Result) async throws -> Result {
        if isBusy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            isBusy = true
        }
        defer {
            if waiting.isEmpty {
                isBusy = false
            } else {
                waiting.removeFirst().resume()
            }
        }
        return try await operation()
    }

    /// Refuses any operation on a closed document.
    func checkOpen() throws {
        guard !isClosed else {
            throw DocumentError(.closed, url: fileURL, "is closed")
        }
    }

    /// Refuses changing the file of a closed or view-only document.
    func checkEditable() throws {
        try checkOpen()
        guard isEditable else {
            throw DocumentError(.notEditable, url: fileURL, "was opened for viewing only and cannot be saved or renamed (a copy can be saved)")
        }
    }

    /// The file of a document that has one.
    func requireFileURL() throws -> URL {
        guard let fileURL else {
            throw DocumentError(.noFileURL, url: nil, "has no file yet: save it with save(to:) first")
        }
        return fileURL
    }
}
