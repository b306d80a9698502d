import FileWrapperDocument

// album-example: a photo album app without a user interface. It opens the
// album package FILE (or starts a new one), performs each ACTION, saves
// if anything changed, closes the document, and prints the album. A save
// writes only the images that changed; the others keep their files.
//
//   album-example Trip.album add:beach.jpg add:hills.jpg remove:1
//
// Actions: add:IMAGE (a file, added under its name or replacing the image
// of that name), remove:N (N counts from 1).
// Exit status: 0 success, 2 an error, which names the file or the action.

/// What ends a session: a message naming the file or the action.
struct Failure: Error {
    let message: String
}

/// Performs `action` on the album.
@MainActor
func perform(_ action: String, on controller: DocumentController<AlbumDocument>) async throws(Failure) {
    if action.hasPrefix("add:") {
        let image = URL(fileURLWithPath: String(action.dropFirst(4)))
        let data: Data
        do {
            data = try Data(contentsOf: image)
        } catch {
            throw Failure(message: "\(action): cannot read \(image.path): \(error.localizedDescription)")
        }
        do {
            try await controller.update { $0.addImage(data, named: image.lastPathComponent) }
        } catch {
            throw Failure(message: "\(action): \(error)")  // the album was closed
        }
    } else if action.hasPrefix("remove:") {
        let count = await controller.document.imageNames.count
        guard let number = Int(action.dropFirst(7)), number >= 1, number <= count else {
            throw Failure(message: "\(action): there is no image \(action.dropFirst(7)) (the album has \(count))")
        }
        do {
            try await controller.update { $0.removeImages(atOffsets: [number - 1]) }
        } catch {
            throw Failure(message: "\(action): \(error)")
        }
    } else {
        throw Failure(message: "\(action): not an action (add:IMAGE, remove:N)")
    }
}

/// One session, as an app opens a document, edits, saves and closes it:
/// the album's lines to print. When it returns, the document and its
/// images are gone: nothing of it is left when the program exits.
@MainActor
func session(path: String, actions: [String]) async throws(Failure) -> [String] {
    let url = URL(fileURLWithPath: path)
    let controller: DocumentController<AlbumDocument>
    do {
        if FileManager.default.fileExists(atPath: path) {
            controller = try await DocumentController(contentsOf: url)
        } else {
            controller = DocumentController(newDocument: AlbumDocument(title: url.deletingPathExtension().lastPathComponent))
        }
    } catch {
        throw Failure(message: "\(error)")
    }
    for action in actions {
        try await perform(action, on: controller)
    }
    do {
        if await controller.fileURL == nil {
            try await controller.save(to: url)
        }
        try await controller.close()
    } catch {
        throw Failure(message: "\(error)")
    }
    let album = await controller.document
    return ["\(album.title): \(album.imageNames.count) images"] + album.imageNames.enumerated().map { number, name in
        "\(number + 1) \(name) (\(album.images[name]?.count ?? 0) bytes)"
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
do throws(Failure) {
    guard let path = arguments.first else {
        throw Failure(message: "usage: album-example FILE [add:IMAGE | remove:N]...")
    }
    do {
        try UTType.registerAlbumType()
    } catch {
        throw Failure(message: "\(error)")
    }
    for line in try await session(path: path, actions: Array(arguments.dropFirst())) {
        print(line)
    }
} catch {
    FileHandle.standardError.write(Data("album-example: \(error.message)\n".utf8))
    exit(2)
}
