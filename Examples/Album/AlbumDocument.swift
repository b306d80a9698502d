import FileWrapperDocument

// A photo album stored as a package (a directory shown as one file): a
// JSON index and one file per image. Written as for SwiftUI, with `import
// FileWrapperDocument` in place of `import SwiftUI` and `import
// UniformTypeIdentifiers`. A save returns the existing file's children for
// the images that did not change, as Apple's documentation of
// `fileWrapper(configuration:)` suggests, so only changed images are written.

extension UTType {
    nonisolated static var album: UTType {
        UTType(exportedAs: "com.example.album", conformingTo: .package)
    }
}

nonisolated struct AlbumIndex: Codable, Equatable {
    var title: String
    var imageNames: [String]
}

struct AlbumDocument: FileDocument {
    static let indexName = "Index.json"
    static let imagesName = "Images"

    var title: String
    var images: [String: Data]
    var imageNames: [String]

    init(title: String = "Untitled Album") {
        self.title = title
        images = [:]
        imageNames = []
    }

    static var readableContentTypes: [UTType] { [.album] }

    init(configuration: ReadConfiguration) throws {
        guard configuration.file.isDirectory,
              let wrappers = configuration.file.fileWrappers,
              let indexData = wrappers[Self.indexName]?.regularFileContents
        else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let index = try JSONDecoder().decode(AlbumIndex.self, from: indexData)
        let imageFiles = wrappers[Self.imagesName]?.fileWrappers ?? [:]
        var images: [String: Data] = [:]
        for name in index.imageNames {
            guard let data = imageFiles[name]?.regularFileContents else {
                throw CocoaError(.fileReadCorruptFile)
            }
            images[name] = data
        }
        title = index.title
        imageNames = index.imageNames
        self.images = images
    }

    mutating func addImage(_ data: Data, named name: String) {
        if images[name] == nil {
            imageNames.append(name)
        }
        images[name] = data
    }

    mutating func removeImages(atOffsets offsets: IndexSet) {
        for offset in offsets {
            images[imageNames[offset]] = nil
        }
        imageNames.remove(atOffsets: offsets)
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let index = AlbumIndex(title: title, imageNames: imageNames)
        let existingImages = configuration.existingFile?.fileWrappers?[Self.imagesName]?.fileWrappers ?? [:]
        var imageWrappers: [String: FileWrapper] = [:]
        for name in imageNames {
            guard let data = images[name] else { continue }
            if let existing = existingImages[name], existing.regularFileContents == data {
                imageWrappers[name] = existing
            } else {
                let wrapper = FileWrapper(regularFileWithContents: data)
                wrapper.preferredFilename = name
                imageWrappers[name] = wrapper
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return FileWrapper(directoryWithFileWrappers: [
            Self.indexName: FileWrapper(regularFileWithContents: try encoder.encode(index)),
            Self.imagesName: FileWrapper(directoryWithFileWrappers: imageWrappers),
        ])
    }
}
