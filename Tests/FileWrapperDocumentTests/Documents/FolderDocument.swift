import FileWrapperDocument

// A document that is any folder, as a file browser or a project opener
// declares one: its type is public.folder, which has no extension.

struct FolderDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.folder] }

    var names: [String]

    init(configuration: ReadConfiguration) throws {
        guard let children = configuration.file.fileWrappers else {
            throw CocoaError(.fileReadCorruptFile)
        }
        names = children.keys.sorted()
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(directoryWithFileWrappers: [:])
    }
}

// A document whose type the program exports but never registered (no
// Info.plist read): no filename extension names it.

extension UTType {
    static var unregisteredDrawing: UTType {
        UTType(exportedAs: "com.example.unregistered-drawing", conformingTo: .json)
    }
}

struct UnregisteredDrawingDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.unregisteredDrawing] }

    var data: Data

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else {
            throw CocoaError(.fileReadCorruptFile)
        }
        self.data = data
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: data)
    }
}
