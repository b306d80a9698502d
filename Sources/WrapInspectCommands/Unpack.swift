import ArgumentParser
import FileWrapperArchive
import FileWrapperKit
import Foundation

/// `wrapinspect unpack ARCHIVE [DESTINATION]`: an archive into a new directory, safely.
struct Unpack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpack",
        abstract: "Unpack an archive into a new directory, refusing anything unsafe.",
        discussion: """
            tar, cpio, zip and 7z are read, plain or compressed with gzip, bzip2, \
            xz, lzma, zstd, lz4, compress or lzip, detected from the bytes (other \
            formats with --all-formats), and Apple's flat RTFD (a serialized file \
            wrapper that begins with its header; not one of a single file). Everything is \
            written into a temporary directory beside DESTINATION and renamed into \
            place at the end; on any refusal or error nothing is left and \
            DESTINATION is as it was. A "." or "./" directory entry gives \
            DESTINATION its mode and time. Refused: absolute paths, "..", \
            entries for the destination itself that are not directories, symlinks that lead out of the tree, writes \
            through symlinks, hard links to anything but an earlier file, device \
            nodes, FIFOs, sockets, a file or link twice (a directory stored again is \
            one directory), a file and a directory at one \
            path, encrypted entries, damaged data, and anything over the limits \
            below. Setuid, setgid, sticky and group/other write bits are dropped; \
            owners are not restored. ARCHIVE "-" (or /dev/stdin) is standard \
            input, which then needs DESTINATION: a pipe is read as a stream, as \
            it comes, but a zip or 7z, whose directory lies at its end, is first \
            copied to an unnamed temporary file in $TMPDIR.

            With --keep-outside-links, a symlink whose target is absolute or \
            leads out of DESTINATION (as `localtime -> /etc/localtime` in a \
            zoneinfo tree) is made as a link instead of refused: never followed \
            during the unpack (nothing is written through any symlink), and \
            counted on the last line. Hard links out of the tree stay refused.

            Examples:
              wrapinspect unpack Travel.zip                 (makes the folder Travel)
              wrapinspect unpack Travel.tar.zst Copy.journal
              wrapinspect unpack --force --max-bytes 100000000 Download.zip Download
              wrapinspect unpack --strip-components 1 project-1.0.tar.gz project
              wrapinspect unpack --keep-outside-links tzdata.tar.xz zoneinfo
            """
    )

    @Argument(help: "The archive to unpack.", completion: .file())
    var archive: String

    @Argument(help: "The directory to create (default: the archive's name without its ending, in the current directory).", completion: .directory)
    var destination: String?

    @Flag(help: """
        Replace DESTINATION whole if it exists: everything in it now is removed, once the unpack has succeeded. \
        Never the current directory, a folder that holds it or the archive, or /.
        """)
    var force = false

    @Option(help: ArgumentHelp("Take N leading names off every path, as tar does; an entry with no more names is skipped.", valueName: "n"))
    var stripComponents: Int = 0

    @Flag(help: "Make symlinks that lead out of DESTINATION (absolute, or through \"..\") as links instead of refusing them; they are never followed during the unpack.")
    var keepOutsideLinks = false

    @OptionGroup var input: InputOptions

    @Option(help: ArgumentHelp("At most this many bytes written per byte of archive, past the first 64 MiB (default 100).", valueName: "ratio"))
    var maxRatio: Double?

    @Option(help: ArgumentHelp("At most this many bytes in an entry's path (default 4096).", valueName: "bytes"))
    var maxPathLength: Int?

    @Option(help: ArgumentHelp("At most this many bytes in one name (default 255).", valueName: "bytes"))
    var maxNameLength: Int?

    @Option(help: ArgumentHelp("At most this many levels of folders (default 1024).", valueName: "n"))
    var maxDepth: Int?

    @Option(help: ArgumentHelp("At most this many bytes in a symlink's target (default 4096).", valueName: "bytes"))
    var maxLinkLength: Int?

    /// The flag that lifts each refusal an option lifts, for errors to name.
    static func flag(for option: ArchiveUnpackOptions.Option) -> String {
        switch option {
        case .keepsOutsideLinks: "--keep-outside-links"
        }
    }

    /// The flag that raises each limit, for errors to name.
    static func flag(for limit: ArchiveReadLimits.Limit) -> String {
        switch limit {
        case .maxEntries: "--max-entries"
        case .maxBytes: "--max-bytes"
        case .maxRatio: "--max-ratio"
        case .maxPathLength: "--max-path-length"
        case .maxNameLength: "--max-name-length"
        case .maxDepth: "--max-depth"
        case .maxLinkLength: "--max-link-length"
        case .maxMemory: "--max-memory"
        }
    }

    func validate() throws {
        let values: [(String, Double?)] = [
            ("--max-ratio", maxRatio),
            ("--max-path-length", maxPathLength.map(Double.init)), ("--max-name-length", maxNameLength.map(Double.init)),
            ("--max-depth", maxDepth.map(Double.init)), ("--max-link-length", maxLinkLength.map(Double.init)),
        ]
        for case let (flag, value?) in values where !(value > 0) {
            throw ValidationError("\(flag) must be more than 0.")
        }
        if stripComponents < 0 {
            throw ValidationError("--strip-components must be 0 or more, not \(stripComponents).")
        }
        _ = try chosenDestination()
    }

    /// DESTINATION, or the folder named after the archive.
    func chosenDestination() throws -> String {
        if let destination { return destination }
        guard let named = Self.defaultDestination(for: archive) else {
            throw ValidationError("Cannot name a folder after \"\(archive)\"; give DESTINATION.")
        }
        return named
    }

    func run() throws {
        var limits = input.unpackingLimits
        maxRatio.map { limits.maxRatio = $0 }
        maxPathLength.map { limits.maxPathLength = $0 }
        maxNameLength.map { limits.maxNameLength = $0 }
        maxDepth.map { limits.maxDepth = $0 }
        maxLinkLength.map { limits.maxLinkLength = $0 }
        let destination = try chosenDestination()
        try Self.checkReplaceable(destination, archive: archive)
        Interruption.removesTemporaries(replacing: destination)
        var options = ArchiveUnpackOptions(formats: input.formats, limits: limits, replacesExisting: force)
        options.stripComponents = stripComponents
        options.keepsOutsideLinks = keepOutsideLinks
        let stream = try StandardInput.stream(for: archive)
        let url = try stream == nil ? StandardInput.url(for: archive, limits: limits) : nil
        let summary = try ProgressLine.showing("unpacking", archive) { progress in
            if let stream {
                return try ArchiveUnpacker.unpack(archiveFrom: stream.fd, name: stream.name, to: URL(fileURLWithPath: destination), options: options,
                                                  progress: progress)
            }
            return try ArchiveUnpacker.unpack(archiveAt: url!, to: URL(fileURLWithPath: destination), options: options, progress: progress)
        }
        try StandardOutput.line("\(summary.entries) entries, \(summary.bytes) bytes unpacked into \(destination)")
        if keepOutsideLinks {
            let links = summary.outsideLinks == 1 ? "1 link points" : "\(summary.outsideLinks) links point"
            try StandardOutput.line("\(links) outside the destination (kept as links, not followed)")
        }
    }
}
