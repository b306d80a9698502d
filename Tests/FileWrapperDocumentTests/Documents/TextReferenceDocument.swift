import FileWrapperDocument
import Foundation

// A reference document written as for SwiftUI: an observable final class
// whose text is `@Published`, so views (here, subscribers of
// `objectWillChange`) learn of edits. Its snapshot is its text.
//
// `@unchecked Sendable`, as a SwiftUI app under Swift 6 writes it: the
// protocol is Sendable, `@Published` storage is not checkably so, and the
// text is only touched through the controller (in an app, on the main actor).

final class TextReferenceDocument: ReferenceFileDocument, @unchecked Sendable {
    static var readableContentTypes: [UTType] { [.plainText] }

    @Published var text: String

    init(text: String = "") {
        self.text = text
    }

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents,
              let string = String(data: data, encoding: .utf8)
        else {
            throw CocoaError(.fileReadCorruptFile)
        }
        text = string
    }

    func snapshot(contentType: UTType) throws -> String {
        text
    }

    func fileWrapper(snapshot: String, configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(snapshot.utf8))
    }
}
