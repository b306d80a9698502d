// Every member of Foundation's and SwiftUI's document API that this
// package provides (docs/foundation-api.md lists them, and what is not
// provided and why), called as Apple's samples call them, each with its
// result checked. That this file compiles is half the proof: a member
// renamed or dropped stops the build.
import FileWrapperDocument
import Foundation
import Testing
import TestSupport

@Suite struct FileWrapperSurfaceTests {
    @Test func everyFileWrapperMember() throws {
        let directory = try TemporaryDirectory()
        let url = directory.appending("Notes.package")

        // Creating
        let text = FileWrapper(regularFileWithContents: Data("Hello".utf8))
        text.preferredFilename = "text.txt"
        let link = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: "text.txt"))
        let oldLink = FileWrapper(symbolicLinkWithDestination: "text.txt")
        let package = FileWrapper(directoryWithFileWrappers: ["link": link])
        #expect(text.isRegularFile && !text.isDirectory && !text.isSymbolicLink)
        #expect(link.isSymbolicLink && oldLink.isSymbolicLink && package.isDirectory)

        // Children
        #expect(package.addFileWrapper(text) == "text.txt")
        let key = package.addRegularFile(withContents: Data("{}".utf8), preferredFilename: "data.json")
        #expect(key == "data.json")
        #expect(package.keyForChildFileWrapper(text) == "text.txt")
        #expect(package.fileWrappers?.count == 3)
        if let json = package.fileWrappers?[key] { package.removeFileWrapper(json) }
        #expect(package.fileWrappers?.keys.sorted() == ["link", "text.txt"])

        // Information
        #expect(link.symbolicLinkDestinationURL?.relativePath == "text.txt")
        #expect(oldLink.symbolicLinkDestination == "text.txt")
        #expect(text.regularFileContents == Data("Hello".utf8))
        text.fileAttributes = [FileAttributeKey.posixPermissions.rawValue: NSNumber(value: 0o640)]
        #expect(text.fileAttributes[FileAttributeKey.posixPermissions.rawValue] as? NSNumber == 0o640)
        #expect(text.filename == nil && text.preferredFilename == "text.txt")

        // Writing, reading, updating
        try package.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: nil)
        #expect(package.filename == "Notes.package" && text.filename == "text.txt")
        #expect(package.matchesContents(of: url))
        let read = try FileWrapper(url: url, options: [.immediate, .withoutMapping])
        #expect(read.fileWrappers?["text.txt"]?.regularFileContents == Data("Hello".utf8))
        try Disk.write("Bye", to: url.appendingPathComponent("text.txt"))
        #expect(!read.matchesContents(of: url))
        try read.read(from: url, options: .immediate)
        #expect(read.fileWrappers?["text.txt"]?.regularFileContents == Data("Bye".utf8))

        // Options
        #expect(FileWrapper.ReadingOptions(rawValue: 3) == [.immediate, .withoutMapping])
        #expect(FileWrapper.WritingOptions(rawValue: 3) == [.atomic, .withNameUpdating])
        #expect(FileWrapper.ReadingOptions.immediate.rawValue == 1 && FileWrapper.WritingOptions.withNameUpdating.rawValue == 2)

        // Serializing and coding
        let blob = try #require(package.serializedRepresentation)
        let copy = try #require(FileWrapper(serializedRepresentation: blob))
        #expect(copy.fileWrappers?["text.txt"]?.regularFileContents == Data("Hello".utf8))
        #expect(FileWrapper.supportsSecureCoding)
        let archive = try NSKeyedArchiver.archivedData(withRootObject: package, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: FileWrapper.self, from: archive))
        #expect(decoded.fileWrappers?["link"]?.symbolicLinkDestinationURL?.relativePath == "text.txt")

        // Equatable and Hashable, by identity
        #expect(copy != package && copy == copy && Set([copy, package, copy]).count == 2)
        #expect(copy.hash == copy.hash)

        // Deprecated path members
        // Through TestSupport's DeprecatedFileWrapperPaths, so that they do not warn.
        let paths: any DeprecatedFileWrapperPaths = try #require(fileWrapper(atPath: url.path))
        #expect(!paths.needsToBeUpdated(fromPath: url.path))
        #expect(!paths.update(fromPath: url.path))
        #expect(paths.addFile(withPath: url.appendingPathComponent("text.txt").path) == "1__#$!@%!#__text.txt")
        #expect(paths.addSymbolicLink(withDestination: "text.txt", preferredFilename: "alias") == "alias")
        #expect(paths.write(toFile: directory.appending("Old.package").path, atomically: true, updateFilenames: false))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory.appending("Old.package/alias").path) == "text.txt")
    }
}

/// A model whose changes register their undo, as Apple's samples write one.
@MainActor private final class Canvas {
    var shapes: [String] = []

    func add(_ shape: String, undoManager: UndoManager) {
        shapes.append(shape)
        undoManager.registerUndo(withTarget: self) { canvas in
            canvas.remove(shape, undoManager: undoManager)
        }
        undoManager.setActionName("Add \(shape)")
    }

    func remove(_ shape: String, undoManager: UndoManager) {
        shapes.removeAll { $0 == shape }
        undoManager.registerUndo(withTarget: self) { canvas in
            canvas.add(shape, undoManager: undoManager)
        }
    }
}

@Suite @MainActor struct UndoManagerSurfaceTests {
    @Test func everyUndoManagerMember() {
        let undoManager = UndoManager()
        let canvas = Canvas()
        let notifications: [Notification.Name] = [
            UndoManager.checkpointNotification, UndoManager.didOpenUndoGroupNotification,
            UndoManager.willCloseUndoGroupNotification, UndoManager.didCloseUndoGroupNotification,
            UndoManager.willUndoChangeNotification, UndoManager.didUndoChangeNotification,
            UndoManager.willRedoChangeNotification, UndoManager.didRedoChangeNotification,
        ]
        #expect(Set(notifications).count == 8)
        #expect(NSUndoCloseGroupingRunLoopOrdering == 350_000)

        // Settings
        undoManager.levelsOfUndo = 10
        undoManager.groupsByEvent = false
        undoManager.runLoopModes = [.default]
        #expect(undoManager.levelsOfUndo == 10 && !undoManager.groupsByEvent && undoManager.runLoopModes == [.default])

        // Registering, grouping, naming
        undoManager.beginUndoGrouping()
        #expect(undoManager.groupingLevel == 1)
        canvas.add("Circle", undoManager: undoManager)
        canvas.add("Square", undoManager: undoManager)
        undoManager.setActionName("Add Shapes")
        undoManager.setActionIsDiscardable(false)
        let key = UndoManager.UserInfoKey("selection")
        undoManager.setActionUserInfoValue("Square", forKey: key)
        undoManager.endUndoGrouping()
        #expect(undoManager.groupingLevel == 0 && undoManager.canUndo && !undoManager.canRedo)
        #expect(undoManager.undoActionName == "Add Shapes" && undoManager.undoMenuItemTitle == "Undo Add Shapes")
        #expect(undoManager.undoMenuTitle(forUndoActionName: "Move") == "Undo Move")
        #expect(undoManager.redoMenuTitle(forUndoActionName: "Move") == "Redo Move")
        #expect(undoManager.undoActionUserInfoValue(forKey: key) as? String == "Square")
        #expect(!undoManager.undoActionIsDiscardable && undoManager.undoCount == 1)

        // Undoing and redoing
        #expect(!undoManager.isUndoing && !undoManager.isRedoing)
        undoManager.undo()
        #expect(canvas.shapes.isEmpty && undoManager.canRedo)
        #expect(undoManager.redoActionName == "Add Shapes" && undoManager.redoMenuItemTitle == "Redo Add Shapes")
        #expect(undoManager.redoActionUserInfoValue(forKey: key) as? String == "Square")
        #expect(!undoManager.redoActionIsDiscardable && undoManager.redoCount == 1)
        undoManager.redo()
        #expect(canvas.shapes == ["Circle", "Square"])
        undoManager.undoNestedGroup()
        #expect(canvas.shapes.isEmpty)

        // Registration on and off, clearing
        undoManager.disableUndoRegistration()
        #expect(!undoManager.isUndoRegistrationEnabled)
        canvas.add("Hidden", undoManager: undoManager)
        undoManager.enableUndoRegistration()
        #expect(undoManager.isUndoRegistrationEnabled && undoManager.undoCount == 0)
        canvas.add("Star", undoManager: undoManager)
        undoManager.removeAllActions(withTarget: canvas)
        #expect(!undoManager.canUndo && !undoManager.canRedo)
        canvas.add("Star", undoManager: undoManager)
        undoManager.removeAllActions()
        #expect(!undoManager.canUndo && NSUndoManagerGroupIsDiscardableKey == "NSUndoManagerGroupIsDiscardableKey")
    }
}

@Suite struct UTTypeSurfaceTests {
    @Test func everyUTTypeMember() throws {
        let notes = UTType(exportedAs: "com.example.surface-notes", conformingTo: .json)
        let imported = UTType(importedAs: "com.example.surface-imported")
        UTType.register(UTTypeDeclarations(exported: [
            UTTypeDeclaration(identifier: notes.identifier, conformsTo: ["public.json"],
                              tags: [.filenameExtension: ["surfacenotes"], .mimeType: ["application/x-surface-notes"]],
                              typeDescription: "Surface notes", referenceURL: URL(string: "https://example.com/notes")),
        ]))
        #expect(notes.identifier == "com.example.surface-notes" && notes.description == notes.identifier)
        #expect(notes.isDeclared && !notes.isDynamic && !notes.isPublic && UTType.json.isPublic)
        #expect(notes.conforms(to: .text) && notes.isSubtype(of: .json) && UTType.json.isSupertype(of: notes))
        #expect(notes.supertypes.contains(.data))
        #expect(notes.tags[.filenameExtension] == ["surfacenotes"])
        #expect(notes.preferredFilenameExtension == "surfacenotes" && notes.preferredMIMEType == "application/x-surface-notes")
        #expect(notes.localizedDescription == "Surface notes" && notes.referenceURL == URL(string: "https://example.com/notes"))
        #expect(UTType("com.example.surface-notes") == notes)
        #expect(UTType(filenameExtension: "surfacenotes") == notes)
        #expect(UTType(filenameExtension: "surfacenotes", conformingTo: .json) == notes)
        #expect(UTType(mimeType: "application/x-surface-notes") == notes)
        #expect(UTType(mimeType: "application/x-surface-notes", conformingTo: .text) == notes)
        #expect(UTType(tag: "surfacenotes", tagClass: .filenameExtension, conformingTo: nil) == notes)
        #expect(UTType.types(tag: "surfacenotes", tagClass: .filenameExtension, conformingTo: nil) == [notes])
        #expect(UTType(filenameExtension: "nothing-declares-this")?.isDynamic == true)
        #expect(imported.identifier == "com.example.surface-imported")
        #expect(UTTagClass.filenameExtension.rawValue == "public.filename-extension" && UTTagClass.mimeType.description == "public.mime-type")
        let coded = try JSONEncoder().encode([notes])
        #expect(try JSONDecoder().decode([UTType].self, from: coded) == [notes])

        let system: [UTType] = [
            .item, .content, .compositeContent, .data, .directory, .folder, .volume, .package, .bundle,
            .symbolicLink, .executable, .unixExecutable, .url, .fileURL, .archive, .zip, .gzip, .epub,
            .text, .plainText, .utf8PlainText, .utf16PlainText, .delimitedText, .commaSeparatedText,
            .tabSeparatedText, .rtf, .html, .xml, .json, .yaml, .markdown, .sourceCode, .swiftSource,
            .propertyList, .xmlPropertyList, .binaryPropertyList, .image, .png, .jpeg, .gif, .tiff, .heic,
            .webP, .svg, .pdf, .audiovisualContent, .audio, .movie, .mp3, .mpeg4Movie,
        ]
        #expect(system.filter { !$0.isDeclared || $0.localizedDescription == nil }.isEmpty)
        #expect(Set(system).count == system.count)
    }
}

/// A value document, as Apple's SwiftUI template writes one.
private struct SurfaceTextDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.plainText] }
    var text = ""

    init(text: String) { self.text = text }

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else { throw CocoaError(.fileReadCorruptFile) }
        text = String(decoding: data, as: UTF8.self)
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(text.utf8))
    }
}

/// A reference document with a snapshot, as Apple's samples write one.
private final class SurfaceBoard: ReferenceFileDocument, @unchecked Sendable {
    static var readableContentTypes: [UTType] { [.json] }
    static var writableContentTypes: [UTType] { [.json, .plainText] }
    @Published var items: [String] = []

    init(items: [String]) { self.items = items }

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else { throw CocoaError(.fileReadCorruptFile) }
        items = try JSONDecoder().decode([String].self, from: data)
    }

    func snapshot(contentType: UTType) throws -> [String] { items }

    func fileWrapper(snapshot: [String], configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: try JSONEncoder().encode(snapshot))
    }
}

@Suite struct DocumentSurfaceTests {
    @Test func everyFileDocumentMember() throws {
        #expect(SurfaceTextDocument.writableContentTypes == [.plainText], "by default, what it reads")
        let write = SurfaceTextDocument.WriteConfiguration(contentType: .plainText, existingFile: nil)
        #expect(write.contentType == .plainText && write.existingFile == nil)
        let file = try SurfaceTextDocument(text: "Hi").fileWrapper(configuration: write)
        let read = SurfaceTextDocument.ReadConfiguration(contentType: .plainText, file: file)
        #expect(read.contentType == .plainText && read.file === file)
        #expect(try SurfaceTextDocument(configuration: read).text == "Hi")
    }

    @Test func everyReferenceFileDocumentMember() throws {
        #expect(SurfaceBoard.readableContentTypes == [.json] && SurfaceBoard.writableContentTypes == [.json, .plainText])
        let board = SurfaceBoard(items: ["a"])
        var changes = 0
        let subscription = board.objectWillChange.sink { _ in changes += 1 }
        board.items.append("b")
        #expect(changes == 1)
        subscription.cancel()
        let snapshot: SurfaceBoard.Snapshot = try board.snapshot(contentType: .json)
        let existing = FileWrapper(regularFileWithContents: Data())
        let configuration = SurfaceBoard.WriteConfiguration(contentType: .json, existingFile: existing)
        #expect(configuration.existingFile === existing)
        let file = try board.fileWrapper(snapshot: snapshot, configuration: configuration)
        let copy = try SurfaceBoard(configuration: SurfaceBoard.ReadConfiguration(contentType: .json, file: file))
        #expect(copy.items == ["a", "b"])
    }
}
