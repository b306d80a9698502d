import FileWrapperDocument
import Foundation

/// `save-document SOURCE DOCUMENT`: opens DOCUMENT with a DocumentController
/// (a package, or a zip container when its name ends in `.zip`), makes its
/// files those of the bundle SOURCE, and saves it in place, as an app saves
/// an edited document: incrementally, the unchanged files linked. With
/// `--pause-before-saving`, says `opened` on standard output once it has
/// opened the document, and saves when a line comes on standard input, so
/// that a test can change the document in between.
func saveDocument(_ arguments: [String], _ flags: Set<String>) async throws {
    let url = URL(fileURLWithPath: arguments[1])
    let type = url.pathExtension == "zip" ? FilesDocument.container : FilesDocument.package
    let files = try FilesDocument.files(of: FileWrapper(url: URL(fileURLWithPath: arguments[0])))
    let controller = try await DocumentController<FilesDocument>(contentsOf: url, contentType: type)
    try await controller.update { $0.files = files }
    if flags.contains("--pause-before-saving") {
        FileHandle.standardOutput.write(Data("opened\n".utf8))
        _ = readLine()
    }
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

/// `save-while-threads-block DOCUMENT`: saves a new text document as
/// DOCUMENT while as many tasks as there are cores block their threads at
/// once. Swift runs tasks on a pool of as many threads as cores, so they
/// can all block together only if the save's serialization holds none of
/// them; its serialization waits for them, for 30 s at most, and the save
/// fails if they never all came.
func saveWhileThreadsBlock(_ arguments: [String], _ flags: Set<String>) async throws {
    let tasks = ProcessInfo.processInfo.activeProcessorCount
    let document = WaitingDocument(tasks: tasks)
    let controller = DocumentController(newDocument: document)
    let save = Task { try await controller.save(to: URL(fileURLWithPath: arguments[0])) }
    for await _ in document.serializing { break }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                document.tasksBlocking.leave()
                guard document.tasksBlocking.wait(timeout: .now() + 30) == .success else { throw WaitingDocument.NeverAllBlocked() }
            }
        }
        try await group.waitForAll()
    }
    try await save.value
}

/// A text document whose serialization says when it starts, then waits
/// until `tasks` tasks have blocked at once (`tasksBlocking`).
struct WaitingDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.plainText] }

    let serializing: AsyncStream<Void>
    private let serializingStarted: AsyncStream<Void>.Continuation
    let tasksBlocking = DispatchGroup()

    struct NeverAllBlocked: Error, CustomStringConvertible {
        var description: String { "the tasks never all blocked at once while the save serialized" }
    }

    init(tasks: Int) {
        (serializing, serializingStarted) = AsyncStream.makeStream()
        for _ in 0..<tasks { tasksBlocking.enter() }
    }

    init(configuration: ReadConfiguration) throws {
        self.init(tasks: 0)
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        serializingStarted.yield()
        guard tasksBlocking.wait(timeout: .now() + 30) == .success else { throw NeverAllBlocked() }
        return FileWrapper(regularFileWithContents: Data("saved while the tasks blocked".utf8))
    }
}
