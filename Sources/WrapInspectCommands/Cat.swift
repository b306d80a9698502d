import ArgumentParser
import FileWrapperArchive
import FileWrapperKit
import Foundation

/// `wrapinspect cat PATH MEMBER`: one file's bytes, from a bundle or an archive.
struct Cat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Write the bytes of one file of a bundle or an archive to standard output.",
        discussion: """
            MEMBER is the file's path below PATH's root, as dump shows it. A \
            zip file is read by its central directory, every local header \
            checked against it, then the member alone, as unzip -p reads it; \
            another archive is streamed to the member, \
            and none is extracted. Every name \
            of a hard-linked file gives its bytes, whichever entry carries them \
            (SVR4 cpio stores them with the last name). Symbolic links are never \
            followed, and a directory, a link or a missing member is an error. \
            PATH "-" is standard input: a pipe is read once, the member kept in \
            an unnamed temporary file until the archive ends (a later entry at \
            its path would win), so a hard link to an earlier entry of another \
            name cannot be given from a pipe; a zip or 7z is first copied there \
            whole, its directory lying at its end.

            Examples:
              wrapinspect cat Travel.journal index.json
              wrapinspect cat Travel.journal.tar.zst "Entries/2026-05-01 Lisbon.md" | less
            """
    )

    @Argument(help: "The directory or archive.", completion: .file())
    var path: String

    @Argument(help: "The file's path inside it.")
    var member: String

    @OptionGroup var input: InputOptions

    func run() throws {
        let options = ManifestReadOptions(hashingContents: false, formats: input.formats, limits: input.limits)
        if let stream = try StandardInput.stream(for: path) {
            try MemberContents.forEachBlock(ofMember: member, inArchiveFrom: stream.fd, name: stream.name, options: options) { block in
                try StandardOutput.write(block)
            }
        } else {
            try MemberContents.forEachBlock(ofMember: member, in: StandardInput.url(for: path, limits: options.limits), options: options) { block in
                try StandardOutput.write(block)
            }
        }
    }
}
