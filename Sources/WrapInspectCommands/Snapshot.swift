import ArgumentParser
import FileWrapperKit
import Foundation

extension ManifestFileFormat: ExpressibleByArgument {}

/// `wrapinspect snapshot PATH`: the manifest of a tree, written to a file
/// or standard output.
struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write the manifest of a tree: every entry with its metadata and SHA-256.",
        discussion: """
            PATH may be a directory, a flat file, an archive or a manifest file \
            (which is read and written again, in another format if asked). Every \
            file is read and hashed, on all cores for a directory and as it \
            streams for an archive, which is never extracted. The manifest can \
            stand in for the tree in dump, digest and diff later.

            Formats: json (one entry per line, stable key order), jsonl (a \
            header line, then one entry per line) and mtree (read by libarchive: \
            bsdtar -cf - @manifest.mtree). docs/manifest-format.md describes them.

            Examples:
              wrapinspect snapshot Travel.journal -o before.json
              wrapinspect snapshot Travel.journal.zip --format mtree > journal.mtree
            """
    )

    @Argument(help: "The directory, file, archive or manifest to describe.", completion: .file())
    var path: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the manifest to this file instead of standard output (- is standard output; a regular file is replaced atomically, through a symbolic link to it; a device, FIFO or socket is written to as a stream).", valueName: "file"), completion: .file())
    var output: String?

    @Option(help: ArgumentHelp("json, jsonl or mtree (default: from the ending of --output, else json).", valueName: "format"))
    var format: ManifestFileFormat?

    @OptionGroup var input: InputOptions

    /// The format asked for, or the one the output's ending names.
    var chosenFormat: ManifestFileFormat {
        if let format { return format }
        guard let output else { return .json }
        return ManifestFileFormat.allCases.first { output.lowercased().hasSuffix("." + $0.rawValue) } ?? .json
    }

    func run() throws {
        let manifest = try input.manifest(of: path, streaming: true)
        guard let output else {
            try Self.writeToStandardOutput(manifest, as: chosenFormat)
            return
        }
        do {
            switch try OutputDestination.resolving(output, binary: false) {
            case .file(let path):
                Interruption.removesTemporaries(replacing: path)
                try manifest.write(as: chosenFormat, toFileAt: path)
            case .stream(STDOUT_FILENO, _, false):
                try Self.writeToStandardOutput(manifest, as: chosenFormat)
            case .stream(let fd, let name, let owned):
                defer { if owned { Syscall.close(fd) } }
                try manifest.write(as: chosenFormat, to: fd, path: name)
            }
        } catch let error as OutputRefused {
            throw error
        } catch let error as StandardOutputError {
            throw error
        } catch {
            throw ManifestError(file: output, message: "cannot write: \(error)")
        }
        // Done: the process ends here rather than free the manifest's
        // entries one by one first (2 ms for 20,000 of them).
        Interruption.finishing()
        withExtendedLifetime(manifest) { Glibc.exit(EXIT_SUCCESS) }
    }

    /// Writes the manifest to standard output, a write error being one of standard output's.
    private static func writeToStandardOutput(_ manifest: Manifest, as format: ManifestFileFormat) throws {
        do {
            try manifest.write(as: format, to: STDOUT_FILENO, path: "standard output")
        } catch {
            throw StandardOutputError(error)
        }
    }
}
