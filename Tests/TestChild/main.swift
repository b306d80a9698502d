// A child process for FileWrapperKit's tests: runs one operation so that a
// test can kill it midway or run it under another user.
//
//   fwk-test-child save SOURCE DESTINATION   read SOURCE, save it atomically over DESTINATION
//   fwk-test-child read PATH                 read PATH and every file's contents
//
// Exits 0 on success; on error prints the error on standard error and exits 2.
import FileWrapperKit
import Foundation

func run(_ arguments: [String]) throws {
    switch (arguments.first, arguments.count) {
    case ("save", 3):
        let wrapper = try FileWrapper(url: URL(fileURLWithPath: arguments[1]))
        try wrapper.write(to: URL(fileURLWithPath: arguments[2]), options: .atomic, originalContentsURL: nil)
    case ("read", 2):
        var pending = [try FileWrapper(url: URL(fileURLWithPath: arguments[1]))]
        while let wrapper = pending.popLast() {
            if wrapper.isDirectory {
                pending.append(contentsOf: wrapper.fileWrappers!.values)
            } else if wrapper.isRegularFile {
                _ = try wrapper.readRegularFileContents()
            }
        }
    default:
        FileHandle.standardError.write(Data("usage: fwk-test-child save SOURCE DESTINATION | read PATH\n".utf8))
        exit(2)
    }
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
