import ArgumentParser
import FileWrapperKit
import Foundation

/// `wrapinspect digest PATH`: the tree digest, the same for a bundle and
/// every archive of it.
struct Digest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "digest",
        abstract: "Print the tree digest: the same for a bundle and for any archive of it.",
        discussion: """
            The tree digest covers names, kinds, the owner's execute bit, \
            symbolic link targets and file contents, and nothing else, so a \
            bundle, its zip, its tar.zst, its flat RTFD and a manifest of any of them print the \
            same digest, while one changed byte, name, link target or execute \
            bit changes it. --metadata adds a second line, the digest of \
            permissions, modification times, owners and extended attributes. \
            docs/tree-digest.md specifies both.

            Examples:
              wrapinspect digest Travel.journal
              wrapinspect digest Travel.journal.zip
            """
    )

    @Argument(help: "The directory, file, archive or manifest.", completion: .file())
    var path: String

    @Flag(help: "Also print the metadata digest.")
    var metadata = false

    @OptionGroup var input: InputOptions

    func run() throws {
        let manifest = try input.manifest(of: path, streaming: true)
        guard let digest = manifest.treeDigestText else {
            throw ManifestError(file: path, message: "the manifest has no file digests (it was written without hashing), so it has no tree digest")
        }
        try StandardOutput.line(digest)
        if metadata {
            try StandardOutput.line(manifest.metadataDigestText)
        }
    }
}
