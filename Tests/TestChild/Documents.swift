import FileWrapperDocument
import Foundation

/// `save-document SOURCE DOCUMENT`: opens DOCUMENT with a DocumentController
/// (a package, or a zip container when its name ends in `.zip`), makes its
/// files those of the bundle SOURCE, and saves it in place, as an app saves
/// an edited document: incrementally, the unchanged files linked.
func saveDocument(_ arguments: [String], _ flags: Set<String>) async throws {
    let url = URL(fileURLWithPath: arguments[1])
    let type = url.pathExtension == "zip" ? FilesDocument.container : FilesDocument.package
    let files = try FilesDocument.files(of: FileWrapper(url: URL(fileURLWithPath: arguments[0])))
    let controller = try await DocumentController<FilesDocument>(contentsOf: url, contentType: type)
    await controller.update { $0.files = files }
    try await controller.save()
}

/// A document that is a tree of files, kept as the bytes of each regular
/// file by its path inside the document.
struct FilesDocument: FileDocument {
    static let package = UTType(exportedAs: "org.filewrapperkit.test-files", conformingTo: .package)
    static let container = UTType(exportedAs: "org.filewrapperkit.test-files-zip", conformingTo: .zip)
    static var readableContentTypes: [UTType] { [package, container] }

    var files: [String: Data]

    init(configuration: ReadConfiguration) throws {
        files = try Self.files(of: configuration.file)
    }

    /// The regular files below `root`, by path.
    static func files(of root: FileWrapper) throws -> [String: Data] {
        var files: [String: Data] = [:]
        var pending = [("", root)]
        while let (path, wrapper) = pending.popLast() {
            if wrapper.isDirectory {
                pending += wrapper.fileWrappers!.map { (path.isEmpty ? $0.key : path + "/" + $0.key, $0.value) }
            } else if wrapper.isRegularFile {
                files[path] = try wrapper.readRegularFileContents()
            }
        }
        return files
    }

    /// The tree of `files`, reusing the wrappers of `existingFile` whose
    /// bytes did not change, so that a bundle links them.
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let root = FileWrapper(directoryWithFileWrappers: [:])
        for (path, data) in files {
            var directory = root
            var existing = configuration.existingFile
            let names = path.split(separator: "/").map(String.init)
            for name in names.dropLast() {
                existing = existing?.fileWrappers?[name]
                if let next = directory.fileWrappers![name] {
                    directory = next
                } else {
                    let next = FileWrapper(directoryWithFileWrappers: [:])
                    next.preferredFilename = name
                    directory.addFileWrapper(next)
                    directory = next
                }
            }
            let name = names.last!
            if let old = existing?.fileWrappers?[name], old.isRegularFile, old.regularFileContents == data {
                directory.addFileWrapper(old)
            } else {
                directory.addRegularFile(withContents: data, preferredFilename: name)
            }
        }
        return root
    }
}
