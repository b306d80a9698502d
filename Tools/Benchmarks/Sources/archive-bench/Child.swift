import FileWrapperArchive
import Foundation

/// The hidden subcommands that do our side of one operation, each in a
/// process of its own so that its time and peak memory are its own, as
/// they are for bsdtar, zip and unzip. They make exactly the library calls
/// that `wrapinspect pack` and `wrapinspect unpack` make.
enum Child: String {
    /// `pack FORMAT SOURCE ARCHIVE`: the contents of the directory SOURCE
    /// become the archive's top-level entries.
    case pack
    /// `unpack ARCHIVE DESTINATION`: DESTINATION must not exist.
    case unpack
    /// Starts and exits: what a process of ours costs before any work.
    case idle

    func run(_ arguments: [String]) throws {
        switch (self, arguments.count) {
        case (.pack, 3):
            guard let format = BenchFormat(rawValue: arguments[0]) else { throw BenchError("unknown format \(arguments[0])") }
            try ArchiveWriter.write(
                contentsOf: URL(fileURLWithPath: arguments[1]), to: URL(fileURLWithPath: arguments[2]),
                options: ArchiveWriteOptions(format: format.ours))
        case (.unpack, 2):
            try ArchiveUnpacker.unpack(archiveAt: URL(fileURLWithPath: arguments[0]), to: URL(fileURLWithPath: arguments[1]))
        case (.idle, 0):
            return
        default:
            throw BenchError("\(rawValue): wrong number of arguments")
        }
    }
}
