import FileWrapperDocument
import Foundation

/// `append-lines DOCUMENT WRITER EDITS [--controllers=N] [--versions]`: opens the
/// ``LinesDocument`` DOCUMENT with N controllers (1 unless given), which
/// each append EDITS lines `WRITER-C-I` (C the controller, I the edit), one
/// a save, as writers that share a document do: a save refused because
/// another saved first is met by revert, the line appended again, and a
/// new save; with `--versions`, every save keeps the version it replaces.
/// Prints `saved N` at the end, N the lines saved.
func appendLines(_ arguments: [String], _ flags: Set<String>) async throws {
    let url = URL(fileURLWithPath: arguments[0])
    let writer = arguments[1]
    guard let edits = Int(arguments[2]) else { throw LinesDocument.Damaged(reason: "EDITS is not a number") }
    let controllers = flags.first { $0.hasPrefix("--controllers=") }.flatMap { Int($0.dropFirst("--controllers=".count)) } ?? 1
    try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<controllers {
            group.addTask {
                let controller = try await DocumentController<LinesDocument>(contentsOf: url, contentType: LinesDocument.type(of: url))
                if flags.contains("--versions") { await controller.setVersionPolicy(.keeping()) }
                for edit in 0..<edits {
                    let line = "\(writer)-\(index)-\(edit)"
                    try await controller.update { $0.lines.append(line) }
                    while true {
                        do {
                            try await controller.save()
                            break
                        } catch let error as DocumentError where error.code == .changedOnDisk {
                            try await controller.revert()
                            try await controller.update { $0.lines.append(line) }
                        }
                    }
                }
                try await controller.close()
            }
        }
        try await group.waitForAll()
    }
    print("saved \(edits * controllers)")
}

/// A document of lines, stored as a package (`.lines`), a zip container
/// (`.lineszip`) or a flat file (anything else). A package or a container
/// holds the lines (`lines.txt`), their count (`count`) and the last one
/// (`last`), which one version writes together: reading files of two
/// versions makes them disagree, and the document refuses them. An empty
/// package or container is a new document, without lines.
struct LinesDocument: FileDocument {
    static let package = UTType(exportedAs: "org.filewrapperkit.test-lines", conformingTo: .package)
    static let container = UTType(exportedAs: "org.filewrapperkit.test-lines-zip", conformingTo: .zip)
    static var readableContentTypes: [UTType] { [package, container, .plainText] }

    struct Damaged: Error, CustomStringConvertible {
        var reason: String
        var description: String { "a mixed or damaged version: \(reason)" }
    }

    var lines: [String] = []

    static func type(of url: URL) -> UTType {
        switch url.pathExtension {
        case "lines": package
        case "lineszip": container
        default: .plainText
        }
    }

    init(configuration: ReadConfiguration) throws {
        guard configuration.file.isDirectory, let files = configuration.file.fileWrappers else {
            lines = Self.lines(configuration.file.regularFileContents ?? Data())
            return
        }
        guard !files.isEmpty else { return }  // a new, empty document
        let text = { (name: String) in files[name]?.regularFileContents.map { String(decoding: $0, as: UTF8.self) } }
        guard let all = files["lines.txt"]?.regularFileContents, let count = text("count"), let last = text("last") else {
            throw Damaged(reason: "files missing: \(files.keys.sorted())")
        }
        lines = Self.lines(all)
        guard count == "\(lines.count)", last == lines.last ?? "" else {
            throw Damaged(reason: "\(lines.count) lines, the last \(lines.last ?? "none"), but count says \(count) and last \(last)")
        }
    }

    private static func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let all = Data(lines.map { $0 + "\n" }.joined().utf8)
        guard configuration.contentType != .plainText else { return FileWrapper(regularFileWithContents: all) }
        return FileWrapper(directoryWithFileWrappers: [
            "lines.txt": FileWrapper(regularFileWithContents: all),
            "count": FileWrapper(regularFileWithContents: Data("\(lines.count)".utf8)),
            "last": FileWrapper(regularFileWithContents: Data((lines.last ?? "").utf8)),
        ])
    }
}
