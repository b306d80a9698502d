import FileWrapperKit
import Foundation

/// `save SOURCE DESTINATION`: reads SOURCE and saves it atomically over DESTINATION.
func save(_ arguments: [String], _ flags: Set<String>) throws {
    let wrapper = try FileWrapper(url: URL(fileURLWithPath: arguments[0]))
    try wrapper.write(to: URL(fileURLWithPath: arguments[1]), options: .atomic, originalContentsURL: nil)
}

/// `read PATH`: reads PATH and every file's contents.
func read(_ arguments: [String], _ flags: Set<String>) throws {
    var pending = [try FileWrapper(url: URL(fileURLWithPath: arguments[0]))]
    while let wrapper = pending.popLast() {
        if wrapper.isDirectory {
            pending.append(contentsOf: wrapper.fileWrappers!.values)
        } else if wrapper.isRegularFile {
            _ = try wrapper.readRegularFileContents()
        }
    }
}
