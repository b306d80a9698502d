import Foundation

/// What a ``DocumentController`` needs from a document type, whether a
/// ``FileDocument`` or a ``ReferenceFileDocument``: the types it reads and
/// writes, how to read one, and how to capture what a save writes. The
/// controller is one type generic over any document; this is what tells
/// the two protocols apart.
struct DocumentSerialization<Document: Sendable>: Sendable {
    let readableContentTypes: [UTType]
    let writableContentTypes: [UTType]
    let read: @Sendable (FileDocumentReadConfiguration) throws -> Document
    /// Captures, on the controller while edits wait, what a save as a type writes.
    let capture: @Sendable (Document, UTType) throws -> PendingSave

    /// The type to open `url` as: `contentType` if given, else the first
    /// type with the file's extension that conforms to a readable type.
    func contentType(of url: URL, given contentType: UTType?) throws -> UTType {
        let readable = readableContentTypes.map(\.identifier).joined(separator: ", ")
        if let contentType {
            guard readableContentTypes.contains(where: contentType.conforms(to:)) else {
                throw DocumentError(.unreadableContentType, url: url,
                                    "cannot be opened as \(contentType.identifier): the document type reads only \(readable)")
            }
            return contentType
        }
        let candidates = UTType.types(tag: url.pathExtension, tagClass: .filenameExtension, conformingTo: .item)
        guard let match = candidates.first(where: { candidate in readableContentTypes.contains(where: candidate.conforms(to:)) }) else {
            let found = candidates.first.map { "its type is \($0.debugDescription)" } ?? "it has no filename extension to tell its type"
            throw DocumentError(.unreadableContentType, url: url, "cannot be opened: \(found), and no document type reads it (this one reads \(readable))")
        }
        return match
    }

    /// The type to save `url` as when none is given: the first writable
    /// type its extension names, else `current`.
    func contentType(forSaving url: URL, current: UTType) -> UTType {
        UTType.types(tag: url.pathExtension, tagClass: .filenameExtension, conformingTo: .item)
            .first { candidate in writableContentTypes.contains(where: candidate.conforms(to:)) } ?? current
    }

    /// Refuses a type the document does not write.
    func checkWritable(_ type: UTType, url: URL?) throws {
        guard writableContentTypes.contains(where: type.conforms(to:)) else {
            let writable = writableContentTypes.map(\.identifier).joined(separator: ", ")
            throw DocumentError(.unwritableContentType, url: url, "cannot be saved as \(type.identifier): the document type writes only \(writable)")
        }
    }
}

extension DocumentSerialization where Document: FileDocument {
    /// A value document: a save captures a copy of the value.
    static var fileDocument: Self {
        Self(readableContentTypes: Document.readableContentTypes, writableContentTypes: Document.writableContentTypes,
             read: { try Document(configuration: $0) },
             capture: { document, _ in PendingSave { try document.fileWrapper(configuration: $0) } })
    }
}

extension DocumentSerialization where Document: ReferenceFileDocument {
    /// A reference document: a save captures the document's snapshot.
    static var referenceDocument: Self {
        Self(readableContentTypes: Document.readableContentTypes, writableContentTypes: Document.writableContentTypes,
             read: { try Document(configuration: $0) },
             capture: { document, contentType in
                 let snapshot = try document.snapshot(contentType: contentType)
                 return PendingSave { try document.fileWrapper(snapshot: snapshot, configuration: $0) }
             })
    }
}
