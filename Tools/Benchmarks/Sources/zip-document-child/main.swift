import FileWrapperArchive
import FileWrapperKit
import Foundation

// zip-document-child: our side of archive-bench's zip-document rows (w4),
// each a process of its own:
//
//   open ARCHIVE                          today's reader, ArchiveReader.fileWrapper
//                                         (limits .unpacking: w4 holds more than
//                                         .inMemory's 1 GiB)
//   save ARCHIVE MEMBER FILE OUTPUT       today's full save: read the tree, replace
//                                         MEMBER with FILE, ArchiveWriter.write
//   open-lazy ARCHIVE                     ZipContainer.fileWrapper (issue 25)
//   read-lazy ARCHIVE MEMBER              one member of the lazy tree, to stdout
//   save-incremental ARCHIVE MEMBER FILE OUTPUT
//                                         ZipContainer.write of the lazy tree
//   save-deferred ARCHIVE MEMBER FILE OUTPUT
//                                         the same with durability .deferred: the
//                                         zip left to the kernel's writeback, as cp
//                                         leaves its copy
//
// `open` and `open-lazy` walk the tree's names and attributes (not the
// contents) and print `SECONDS PEAK_KIB ENTRIES`: the time of opening and
// walking, this process's peak resident set size, the entries.

/// The peak resident set size of this process so far, in KiB: `VmHWM` from
/// /proc/self/status (getrusage's would include what the parent had before
/// `execve`).
func peakKiB() throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kib = Int(line.split(separator: " ")[1])
    else { throw ChildError("no VmHWM in /proc/self/status") }
    return kib
}

struct ChildError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Opens a tree with `open`, walks every wrapper's attributes, prints the figures.
func measureOpening(_ open: () throws -> FileWrapper) throws {
    let start = ContinuousClock.now
    let root = try open()
    var entries = 0
    var pending = [root]
    while let wrapper = pending.popLast() {
        entries += 1
        _ = wrapper.fileAttributes.count
        if wrapper.isDirectory { pending.append(contentsOf: wrapper.fileWrappers!.values) }
    }
    let elapsed = (ContinuousClock.now - start).components
    print(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, try peakKiB(), entries - 1)
    withExtendedLifetime(root) {}
}

/// The wrapper at `path` (names joined with `/`) below `root`, and its parent.
func member(_ path: String, of root: FileWrapper) throws -> (parent: FileWrapper, wrapper: FileWrapper) {
    var parent = root
    let names = path.split(separator: "/").map(String.init)
    for name in names.dropLast() {
        guard let next = parent.fileWrappers?[name] else { throw ChildError("no \(path) in the archive") }
        parent = next
    }
    guard let wrapper = parent.fileWrappers?[names.last!] else { throw ChildError("no \(path) in the archive") }
    return (parent, wrapper)
}

/// Replaces the member at `path` with the contents of `file`, as an editor saves a changed part.
func replace(_ path: String, of root: FileWrapper, with file: String) throws {
    let (parent, old) = try member(path, of: root)
    parent.removeFileWrapper(old)
    _ = parent.addRegularFile(withContents: try Data(contentsOf: URL(fileURLWithPath: file)), preferredFilename: String(path.split(separator: "/").last!))
}

let documentOptions = ArchiveWriteOptions(format: .zip, firstStoredEntry: "mimetype")
/// Today's reader refuses w4 with its default limits (1 GiB of contents in memory).
let todaysLimits = ArchiveReadLimits.unpacking

func run(_ arguments: [String]) throws {
    let url = { (index: Int) in URL(fileURLWithPath: arguments[index]) }
    switch (arguments.first, arguments.count) {
    case ("open", 2):
        try measureOpening { try ArchiveReader.fileWrapper(contentsOf: url(1), limits: todaysLimits) }
    case ("save", 5):
        let root = try ArchiveReader.fileWrapper(contentsOf: url(1), limits: todaysLimits)
        try replace(arguments[2], of: root, with: arguments[3])
        try ArchiveWriter.write(root, to: url(4), options: documentOptions)
    case ("open-lazy", 2):
        try measureOpening { try ZipContainer.fileWrapper(contentsOf: url(1)) }
    case ("read-lazy", 3):
        let root = try ZipContainer.fileWrapper(contentsOf: url(1))
        FileHandle.standardOutput.write(try member(arguments[2], of: root).wrapper.readRegularFileContents())
    case ("save-incremental", 5), ("save-deferred", 5):
        let root = try ZipContainer.fileWrapper(contentsOf: url(1))
        try replace(arguments[2], of: root, with: arguments[3])
        var options = documentOptions
        if arguments[0] == "save-deferred" { options.durability = .deferred }
        try ZipContainer.write(root, to: url(4), options: options)
    default:
        throw ChildError("usage: zip-document-child open|open-lazy ARCHIVE | read-lazy ARCHIVE MEMBER | save|save-incremental|save-deferred ARCHIVE MEMBER FILE OUTPUT")
    }
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("zip-document-child: \(error)\n".utf8))
    exit(1)
}
