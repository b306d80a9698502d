import FileWrapperDocument

// album-example: a photo album app without a user interface. It opens the
// album package FILE (or starts a new one), performs each ACTION, saves
// if anything changed, and prints the album. A save writes only the
// images that changed; the others keep their files.
//
//   album-example Trip.album add:beach.jpg add:hills.jpg remove:1
//
// Actions: add:IMAGE (a file, added under its name or replacing the image
// of that name), remove:N (N counts from 1).
// Exit status: 0 success, 2 an error, which names the file or the action.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("album-example: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    fail("usage: album-example FILE [add:IMAGE | remove:N]...")
}
do {
    try UTType.registerAlbumType()
} catch {
    fail("\(error)")
}

let url = URL(fileURLWithPath: path)
let controller: DocumentController<AlbumDocument>
do {
    if FileManager.default.fileExists(atPath: path) {
        controller = try await DocumentController(contentsOf: url)
    } else {
        controller = DocumentController(newDocument: AlbumDocument(title: url.deletingPathExtension().lastPathComponent))
    }
} catch {
    fail("\(error)")
}

for action in arguments.dropFirst() {
    if action.hasPrefix("add:") {
        let image = URL(fileURLWithPath: String(action.dropFirst(4)))
        let data: Data
        do {
            data = try Data(contentsOf: image)
        } catch {
            fail("\(action): cannot read \(image.path): \(error.localizedDescription)")
        }
        await controller.update { $0.addImage(data, named: image.lastPathComponent) }
    } else if action.hasPrefix("remove:") {
        let count = await controller.document.imageNames.count
        guard let number = Int(action.dropFirst(7)), number >= 1, number <= count else {
            fail("\(action): there is no image \(action.dropFirst(7)) (the album has \(count))")
        }
        await controller.update { $0.removeImages(atOffsets: [number - 1]) }
    } else {
        fail("\(action): not an action (add:IMAGE, remove:N)")
    }
}

do {
    if await controller.fileURL == nil {
        try await controller.save(to: url)
    } else {
        try await controller.autosave()
    }
} catch {
    fail("\(error)")
}
let album = await controller.document
print("\(album.title): \(album.imageNames.count) images")
for (number, name) in album.imageNames.enumerated() {
    print("\(number + 1) \(name) (\(album.images[name]?.count ?? 0) bytes)")
}
