import FileWrapperArchive
import FileWrapperKit
import Foundation

/// `pack FORMAT SOURCE ARCHIVE [--reproducible]`: packs the bundle SOURCE
/// into ARCHIVE; FORMAT is an extension such as `zip` or `tar.gz`.
func pack(_ arguments: [String], _ flags: Set<String>) throws {
    guard let format = ArchiveFormat(name: arguments[0]) else {
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "unknown format \(arguments[0])"])
    }
    let wrapper = try FileWrapper(url: URL(fileURLWithPath: arguments[1]))
    let options = ArchiveWriteOptions(format: format, reproducible: flags.contains("--reproducible"))
    try ArchiveWriter.write(wrapper, to: URL(fileURLWithPath: arguments[2]), options: options)
}

/// `unpack ARCHIVE DESTINATION [--force]`: unpacks ARCHIVE into DESTINATION,
/// replacing it with `--force`.
func unpack(_ arguments: [String], _ flags: Set<String>) throws {
    let options = ArchiveUnpackOptions(replacesExisting: flags.contains("--force"))
    try ArchiveUnpacker.unpack(archiveAt: URL(fileURLWithPath: arguments[0]), to: URL(fileURLWithPath: arguments[1]), options: options)
}
