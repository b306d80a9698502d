import FileWrapperDocument

// A drawing stored as one JSON file: a value document whose model is
// Codable with CoreGraphics geometry, in the manner of Apple's samples.

extension UTType {
    nonisolated static var sketch: UTType {
        UTType(exportedAs: "com.example.shape-sketch", conformingTo: .json)
    }
}

nonisolated struct Shape: Identifiable, Codable, Equatable {
    enum Kind: String, Codable {
        case rectangle, ellipse
    }

    var id = UUID()
    var kind: Kind
    var origin: CGPoint
    var size: CGSize

    var frame: CGRect { CGRect(origin: origin, size: size) }
}

struct SketchDocument: FileDocument {
    var shapes: [Shape]

    init(shapes: [Shape] = []) {
        self.shapes = shapes
    }

    static var readableContentTypes: [UTType] { [.sketch] }

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents,
              let shapes = try? JSONDecoder().decode([Shape].self, from: data)
        else {
            throw CocoaError(.fileReadCorruptFile)
        }
        self.shapes = shapes
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .prettyPrinted
        return .init(regularFileWithContents: try encoder.encode(shapes))
    }
}
