import Foundation
import ZIPFoundation

// zipfoundation-replace ARCHIVE MEMBER FILE
//
// Replaces the member MEMBER of ARCHIVE with the contents of FILE, deflated,
// the way an app using ZIPFoundation saves one changed member of a
// document: `Archive(url:accessMode: .update)`, `remove` of the entry,
// then `addEntry(with:fileURL:compressionMethod: .deflate)`, which puts it
// at the end.

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: zipfoundation-replace ARCHIVE MEMBER FILE\n".utf8))
    exit(2)
}
do {
    let archive = try Archive(url: URL(fileURLWithPath: arguments[0]), accessMode: .update)
    guard let entry = archive[arguments[1]] else {
        FileHandle.standardError.write(Data("zipfoundation-replace: no member \(arguments[1]) in \(arguments[0])\n".utf8))
        exit(1)
    }
    try archive.remove(entry)
    try archive.addEntry(with: arguments[1], fileURL: URL(fileURLWithPath: arguments[2]), compressionMethod: .deflate)
} catch {
    FileHandle.standardError.write(Data("zipfoundation-replace: \(error)\n".utf8))
    exit(1)
}
