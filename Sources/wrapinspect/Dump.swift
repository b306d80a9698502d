import ArgumentParser
import FileWrapperDocument
import Foundation

/// `wrapinspect dump PATH`: the tree of a bundle, a flat file, an archive
/// or a manifest file, one line per entry, like `tree` crossed with `ls -l`.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the tree of a document package, one line per entry.",
        discussion: """
            PATH may be a directory, a flat file, an archive (tar, cpio, zip, \
            7z, plain or compressed) or a manifest file from `snapshot`, told \
            apart by their bytes. Each line shows the kind and permission bits \
            (as ls -l does; "?" where an archive records none), the size of a \
            file, and the entry's place in the tree; directories end in "/", \
            symbolic links show "-> target" and are not followed, hard links in \
            an archive show "=> path". Entries are sorted by the bytes of their \
            names. The last line counts every entry below PATH, including those \
            that --max-depth leaves out, and adds up the sizes of the files.

            Examples:
              wrapinspect dump Travel.journal
              wrapinspect dump --digests --max-depth 1 Travel.journal.zip
              wrapinspect dump --json Travel.journal.tar.zst
            """
    )

    @Argument(help: "The directory, file, archive or manifest to show.")
    var path: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Show entries at most this many levels below PATH (0 shows PATH alone).", valueName: "n"))
    var maxDepth: Int?

    @Flag(help: "Read every file and show its SHA-256, each directory's tree digest, and the tree digest at the end.")
    var digests = false

    @Flag(help: "Print the manifest as JSON (the format of `snapshot --format json`) instead of the tree.")
    var json = false

    @OptionGroup var input: InputOptions

    func validate() throws {
        if path.isEmpty {
            throw ValidationError("PATH must not be empty.")
        }
        if let maxDepth, maxDepth < 0 {
            throw ValidationError("--max-depth must be 0 or more, not \(maxDepth).")
        }
        if json, maxDepth != nil {
            throw ValidationError("--max-depth shapes the tree for people; --json prints every entry.")
        }
    }

    func run() throws {
        // A manifest file carries its digests; anything else is hashed only when asked.
        let manifest = try input.manifest(of: path, hashingContents: digests)
        if json {
            FileHandle.standardOutput.write(manifest.encoded(as: .json))
            return
        }
        let listing = TreeListing(manifest, rootName: path, maxDepth: maxDepth, showsDigests: digests)
        for line in listing.renderedLines() {
            print(line)
        }
        print(listing.totals.summary)
        if digests, let digest = manifest.treeDigestText {
            print("tree digest \(digest)")
        }
    }
}
