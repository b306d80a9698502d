import ArgumentParser
import FileWrapperArchive
import FileWrapperKit
import Foundation

/// `wrapinspect dump PATH`: the tree of a bundle, a flat file, an archive
/// or a manifest file, one line per entry, like `tree` crossed with `ls -l`.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the tree of a document package, one line per entry.",
        discussion: """
            PATH may be a directory, a flat file, an archive (tar, cpio, zip, \
            7z, plain or compressed; or Apple's flat RTFD, by its header) or a \
            manifest file from `snapshot`, told \
            apart by their bytes; "-" is standard input, a pipe read as a \
            stream (a zip or 7z, whose directory lies at its end, through an \
            unnamed temporary file). Each line shows the kind and permission bits \
            (as ls -l does; "?" where an archive records none), the size of a \
            file, and the entry's place in the tree; directories end in "/", \
            symbolic links show "-> target" and are not followed, hard links in \
            an archive show "=> path". Entries are sorted by the bytes of their \
            names. The last line counts every entry below PATH, including those \
            that --max-depth leaves out, and adds up the sizes of the files. A \
            path an archive stores twice (appended with tar -rf) shows its last \
            entry, as extraction leaves it, and is named on standard error. \
            A folder that cannot be opened or listed (or, with --digests, a \
            file that cannot be read) is listed with its error, everything \
            else as usual, and dump then names it on standard error and \
            exits 2, as ls -R and find do; --json then writes version 2, a \
            partial listing (docs/manifest-format.md).

            With --stored, an archive's entries are listed as they are stored, \
            in order, one line each (mode, size in bytes, path), as bsdtar -tv \
            lists them: nothing is cleaned, checked or sorted, so absolute \
            paths, "..", an entry stored twice and device nodes show as they \
            are; with --json, one JSON object per entry and line.

            Examples:
              wrapinspect dump Travel.journal
              wrapinspect dump --digests --max-depth 1 Travel.journal.zip
              wrapinspect dump --json Travel.journal.tar.zst
              wrapinspect dump --stored --all-formats Download.tar.gz
            """
    )

    @Argument(help: "The directory, file, archive or manifest to show.", completion: .file())
    var path: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Show entries at most this many levels below PATH (0 shows PATH alone).", valueName: "n"))
    var maxDepth: Int?

    @Flag(help: "Read every file and show its SHA-256, each directory's tree digest, and the tree digest at the end.")
    var digests = false

    @Flag(help: "Print the manifest as JSON (the format of `snapshot --format json`) instead of the tree.")
    var json = false

    @Flag(help: "List an archive's entries as stored, in order, without building a tree.")
    var stored = false

    @Option(help: ArgumentHelp("Also write the tree and its size map as one self-contained HTML page to this file.", valueName: "file"),
            completion: .file(extensions: ["html"]))
    var html: String?

    @OptionGroup var input: InputOptions

    func validate() throws {
        if path.isEmpty {
            throw ValidationError("PATH must not be empty.")
        }
        if let maxDepth, maxDepth < 0 {
            throw ValidationError("--max-depth must be 0 or more, not \(maxDepth).")
        }
        if json || stored, maxDepth != nil {
            throw ValidationError("--max-depth shapes the tree for people; --json and --stored print every entry.")
        }
    }

    func run() throws {
        if stored {
            return try listStored()
        }
        // A manifest file carries its digests; anything else is hashed only when asked.
        let manifest: Manifest
        do {
            manifest = try input.manifest(of: path, hashingContents: digests, keepingUnreadable: true, streaming: true)
        } catch {
            throw StoredHint(error, path: path, formats: input.formats) ?? error
        }
        if let html { try HtmlDumpReport.page(manifest, name: path).write(to: html) }
        if json {
            try StandardOutput.write(manifest.encoded(as: .json))
            return try reportUnreadable(of: manifest)
        }
        let listing = TreeListing(manifest, rootName: path, maxDepth: maxDepth, showsDigests: digests)
        for line in listing.renderedLines() {
            try StandardOutput.line(line)
        }
        try StandardOutput.line(listing.totals.summary)
        if digests, let digest = manifest.treeDigestText {
            try StandardOutput.line("tree digest \(digest)")
        }
        try reportUnreadable(of: manifest)
    }

    /// After the listing, names each folder or file that could not be read
    /// on standard error and exits 2, as `ls -R` and `find` do.
    private func reportUnreadable(of manifest: Manifest) throws {
        guard manifest.isPartial else { return }
        try StandardOutput.flush()
        for unreadable in manifest.unreadable {
            printError(unreadable.error.description)
        }
        throw ExitCode(WrapInspect.troubleStatus)
    }

    /// Prints each entry of the archive at ``path`` as libarchive reads it,
    /// then a count; contents are read only for `--digests`.
    private func listStored() throws {
        var count: Int64 = 0
        var bytes: Int64 = 0
        do {
            let visit = { (archived: ArchiveEntry, contents: ArchiveEntryContents) in
                var entry = ManifestEntry(archived)
                // A hard link that carries contents (SVR4 cpio's last link) shows them.
                if archived.carriesContents { entry.size = archived.size }
                if digests, archived.kind == .regularFile || archived.carriesContents {
                    (entry.contentDigest, entry.size) = try SHA256Hasher.digest(of: contents.forEachBlock)
                }
                count += 1
                bytes += entry.size ?? 0
                if json {
                    try StandardOutput.write(entry.encodedAsJSON() + Data("\n".utf8))
                } else {
                    try StandardOutput.line(StoredLine(archived, size: entry.size, digest: entry.contentDigest).text)
                }
            }
            if let stream = try StandardInput.stream(for: path) {
                try ArchiveEntries.forEach(inArchiveFrom: stream.fd, name: stream.name, formats: input.formats, limits: input.limits,
                                           checkingContents: digests, visit)
            } else {
                try ArchiveEntries.forEach(in: StandardInput.url(for: path, limits: input.limits), formats: input.formats, limits: input.limits,
                                           checkingContents: digests, visit)
            }
        } catch let error as ArchiveError where error.code == .unrecognizedFormat {
            throw ManifestError(file: path, message: "not an archive in a format read, so it has no stored entries to list")
        }
        if !json {
            try StandardOutput.line("\(Format.count(count, "entry", "entries")), \(Format.count(bytes, "byte", "bytes")) in files")
        }
    }
}

/// A refusal of what an archive holds (a path that leaves the tree, an
/// entry below a link or a file, a hard link to nothing, damaged data),
/// with a pointer to `dump --stored`, which lists the entries as stored
/// without those checks. Limits name their own flags, other inputs (a
/// bundle, a manifest file) have no stored entries, and a refusal that
/// names no entry is of the whole archive, which `--stored` meets too
/// (a zip whose directory libarchive cannot find), so none of them gets it.
struct StoredHint: Error, LocalizedError {
    let description: String

    init?(_ error: Error, path: String, formats: ArchiveReadFormats) {
        if let error = error as? ArchiveError {
            guard [.corrupt, .unsafePath, .duplicateEntry, .unsupportedEntry, .encrypted].contains(error.code), error.entry != nil else { return nil }
        } else if error is ManifestError {
            let options = ManifestReadOptions(hashingContents: false, formats: formats)
            // A stream that was read is gone: only a path is looked at again.
            guard (try? StandardInput.stream(for: path)) == nil,
                  let url = try? StandardInput.url(for: path, limits: options.limits), (try? Manifest.inputKind(of: url, options: options)) == .archive
            else { return nil }
        } else {
            return nil
        }
        // libarchive's messages may end in a newline.
        let refusal = WrapInspect.describe(error).trimmingCharacters(in: .whitespacesAndNewlines)
        description = refusal + " (dump --stored lists the archive's entries as they are stored, unchecked)"
    }

    var errorDescription: String? { description }
}

/// One line of `dump --stored`: the kind and permission bits as `ls -l`
/// shows them, the size in bytes, the SHA-256 with `--digests`, and the
/// path as stored, with `-> target` for a symbolic link and `=> path` for a
/// hard link.
private struct StoredLine {
    var text: String

    init(_ entry: ArchiveEntry, size: Int64?, digest: SHA256Digest?) {
        let letter: Character = switch entry.kind {
        case .regularFile, .hardLink: "-"
        case .directory: "d"
        case .symbolicLink: "l"
        case .characterDevice: "c"
        case .blockDevice: "b"
        case .fifo: "p"
        case .socket: "s"
        case .unknown: "?"
        }
        let sizeText = size.map(String.init) ?? "-"
        text = (entry.permissions.map { Format.mode(kind: letter, permissions: $0) } ?? String(letter) + "?????????") + "  "
            + String(repeating: " ", count: max(0, 10 - sizeText.count)) + sizeText + "  "
        if let digest {
            text += digest.hex + "  "
        }
        text += entry.displayPath
        if entry.kind == .symbolicLink {
            text += " -> " + Format.name(entry.symbolicLinkTarget ?? [])
        } else if entry.kind == .hardLink {
            text += " => " + Format.name(entry.hardLinkTarget ?? [])
        }
    }
}
