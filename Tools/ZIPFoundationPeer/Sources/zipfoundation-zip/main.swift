import Foundation
import ZIPFoundation

// zipfoundation-zip SOURCE ARCHIVE
//
// Zips the contents of the directory SOURCE into ARCHIVE, deflated, the way
// an app using ZIPFoundation would: `FileManager.zipItem(at:to:)`. The
// entries at SOURCE's top become the archive's top-level entries, as with
// `wrapinspect pack`.

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: zipfoundation-zip SOURCE ARCHIVE\n".utf8))
    exit(2)
}
do {
    try FileManager.default.zipItem(
        at: URL(fileURLWithPath: arguments.first!), to: URL(fileURLWithPath: arguments.last!),
        shouldKeepParent: false, compressionMethod: .deflate)
} catch {
    FileHandle.standardError.write(Data("zipfoundation-zip: \(error)\n".utf8))
    exit(1)
}
