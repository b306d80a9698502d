import ArgumentParser
import FileWrapperArchive
import FileWrapperKit
import Foundation

/// How the commands that take any input (a bundle, a flat file, an archive
/// or a manifest file) read archives and manifest files: which formats,
/// within which limits (a manifest file's are ``ArchiveReadLimits/manifestLimits``).
struct InputOptions: ParsableArguments {
    @Flag(help: "Also read ISO 9660, RAR, xar, Cabinet, LHA, ar, WARC and mtree archives, and let libarchive detect compression itself. libarchive 3.6.2 can hang or exhaust memory on hostile input in these: use it for trusted archives only.")
    var allFormats = false

    @Option(help: ArgumentHelp("At most this many entries in an archive or a manifest file, counting the folders a manifest's paths imply (default 100000 to unpack or verify, 2000000 to read).", valueName: "n"))
    var maxEntries: Int?

    @Option(help: ArgumentHelp("At most this many bytes of contents in an archive, or declared by a manifest file's sizes; it also bounds how long such a file, or standard input kept whole, may be (default 4294967296, 4 GiB).", valueName: "bytes"))
    var maxBytes: Int64?

    @Option(help: ArgumentHelp("At most this many bytes of memory for what an archive declares: a decoder's dictionary or window, a 7z header, a cpio name (default 268435456, 256 MiB).", valueName: "bytes"))
    var maxMemory: Int64?

    func validate() throws {
        if let maxEntries, maxEntries <= 0 {
            throw ValidationError("--max-entries must be more than 0.")
        }
        if let maxBytes, maxBytes <= 0 {
            throw ValidationError("--max-bytes must be more than 0.")
        }
        if let maxMemory, maxMemory <= 0 {
            throw ValidationError("--max-memory must be more than 0.")
        }
    }

    var formats: ArchiveReadFormats { allFormats ? .all : .standard }

    /// The limits for reading an archive without unpacking it (`dump`,
    /// `digest`, `snapshot`, `diff`, `cat`), with the ones given here.
    var limits: ArchiveReadLimits { given(.reading) }

    /// The limits for unpacking (`unpack`, `verify`), with the ones given here.
    var unpackingLimits: ArchiveReadLimits { given(.unpacking) }

    private func given(_ defaults: ArchiveReadLimits) -> ArchiveReadLimits {
        var limits = defaults
        maxEntries.map { limits.maxEntries = $0 }
        maxBytes.map { limits.maxBytes = $0 }
        maxMemory.map { limits.maxMemory = $0 }
        return limits
    }

    /// The manifest of `path`, whatever it holds, with every file hashed
    /// unless `hashingContents` is false. Shows progress on standard error
    /// when it is a terminal, and says there which paths an archive stores
    /// more than once (the manifest shows the last entry of each). With
    /// `keepingUnreadable`, a tree on disk with folders or files that cannot
    /// be read gives a partial listing that names them instead of an error.
    /// With `streaming`, a pipe on standard input is read as it comes, for
    /// a command that reads its input once (``StandardInput/stream(for:)``).
    func manifest(of path: String, hashingContents: Bool = true, keepingUnreadable: Bool = false, streaming: Bool = false) throws -> Manifest {
        var options = ManifestReadOptions(hashingContents: hashingContents, formats: formats, limits: limits)
        options.keepsUnreadable = keepingUnreadable
        let manifest = try ProgressLine.showing(reading: path) { progress in
            var options = options
            options.progress = progress
            return try StandardInput.manifest(of: path, streaming: streaming, options: options)
        }
        Self.reportRepeatedPaths(of: manifest, name: path)
        return manifest
    }

    /// How many repeated paths are named one a line before the rest are counted.
    static let repeatedPathsNamed = 5

    /// One line on standard error for each path the archive stores more
    /// than once, up to ``repeatedPathsNamed``, then a count of the rest.
    static func reportRepeatedPaths(of manifest: Manifest, name: String) {
        let repeated = manifest.repeatedPaths
        for path in repeated.prefix(repeatedPathsNamed) {
            printError("\(name): \"\(PathDisplay.text(path))\": stored more than once; read as its last entry, as extraction leaves it (unpack refuses it)")
        }
        if repeated.count > repeatedPathsNamed {
            let more = repeated.count - repeatedPathsNamed
            printError("\(name): \(Format.count(Int64(more), "more path", "more paths")) stored more than once, each read as its last entry")
        }
    }
}
