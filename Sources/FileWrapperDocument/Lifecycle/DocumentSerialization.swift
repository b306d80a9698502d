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
    /// Whether an edit through the controller registers its undo: a value
    /// can be put back; a reference document registers its own.
    let undoesEdits: Bool

    /// The type to open `url` as: `contentType` if given, else the first
    /// type of the file that conforms to a readable type. As on Apple's
    /// systems, a directory is of the package type its extension names,
    /// else `public.folder` (whatever its extension, or none); a file is of
    /// the type its extension names.
    func contentType(of url: URL, given contentType: UTType?) throws -> UTType {
        let readable = readableContentTypes.map(\.identifier).joined(separator: ", ")
        if let contentType {
            guard readableContentTypes.contains(where: contentType.conforms(to:)) else {
                throw DocumentError(.unreadableContentType, url: url,
                                    "cannot be opened as \(contentType.identifier): the document type reads only \(readable)")
            }
            return contentType
        }
        var candidates = UTType.types(tag: url.pathExtension, tagClass: .filenameExtension, conformingTo: .item)
        if DocumentStorage.isDirectory(at: url) {
            let packages = candidates.filter { $0.isDeclared && $0.conforms(to: .directory) }
            // After the folder, the file types the extension names: a
            // document that reads those is told it found a directory.
            candidates = packages.isEmpty ? [.folder] + candidates.filter(\.isDeclared) : packages
        }
        guard let match = candidates.first(where: { candidate in readableContentTypes.contains(where: candidate.conforms(to:)) }) else {
            let found = candidates.first.map { "its type is \($0.debugDescription)" } ?? "it has no filename extension to tell its type"
            throw DocumentError(.unreadableContentType, url: url,
                                "cannot be opened: \(found), and no document type reads it (this one reads \(readable))" + registrationHint(candidates: candidates))
        }
        return match
    }

    /// How to open a file whose type no readable type matched, when the
    /// reason may be a declaration the program did not register (on
    /// Apple's systems, the app's Info.plist registers it): a readable type
    /// that is not registered, or an extension no registered type has.
    private func registrationHint(candidates: [UTType]) -> String {
        let how = "(UTType.registerDeclarations(contentsOf:) reads the UTExportedTypeDeclarations of an Info.plist; "
            + "UTType.register(_:) takes them in code), or pass contentType: to open it as a type the document reads"
        let unregistered = readableContentTypes.filter { !$0.isDeclared && !$0.isDynamic }.map(\.identifier)
        if !unregistered.isEmpty {
            let names = unregistered.joined(separator: ", ")
            return ". \(names) \(unregistered.count == 1 ? "is" : "are") not registered, so no filename extension names \(unregistered.count == 1 ? "it" : "them")"
                + ": register \(unregistered.count == 1 ? "its declaration" : "their declarations") \(how)"
        }
        if candidates.first?.isDynamic == true {
            return ". No registered type has this filename extension: register a declaration with it \(how)"
        }
        return ""
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
             capture: { document, _ in PendingSave { try document.fileWrapper(configuration: $0) } },
             undoesEdits: true)
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
             },
             undoesEdits: false)
    }
}
