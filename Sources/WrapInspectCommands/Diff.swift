import ArgumentParser
import FileWrapperArchive
import FileWrapperKit
import Foundation

/// `wrapinspect diff A B`: what changed from one tree to another, whatever
/// form each is in.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two trees: added, removed, moved, contents, kind and metadata.",
        discussion: """
            OLD and NEW may each be a directory, a flat file, an archive or a \
            manifest file (from wrapinspect snapshot), in any pairing: a bundle \
            against its zip compares the trees, not the containers. Every file \
            is hashed; subtrees whose digests agree are skipped.

            One line per change, in path order (a move at its old path):
              + PATH (size)                 added
              - PATH (size)                 removed
              M PATH (size -> size)         contents changed (a symlink: its target)
              T PATH: kind -> kind          kind changed
              m PATH: mode 0644 -> 0755     metadata changed: mode, mtime, owner, xattrs
              R OLD -> NEW                  moved: the same contents at another path
              R OLD -> NEW (87% similar, size -> size)
                                            moved and changed
            then a summary. An added, removed or moved directory is one line, \
            with the number of entries below it. Times are UTC. Metadata one \
            side does not record (owners in a zip) is not compared; times are \
            compared at the coarser resolution of the two sides (2 s for a zip \
            with DOS times). A directory's new time is not reported when \
            entries came, went or changed kind in it.

            Moves of changed files are found as git diff -M finds renames: a \
            removed and an added file pair when at least --find-renames \
            percent (50) of the removed file's bytes are in the added one, \
            counted over the larger of the two, by git's similarity score; \
            files whose name is unique on both sides pair first, at halfway \
            from that to 100 %. Only removed and added files are read for \
            this, at most --max-diff-bytes of each (larger ones are not \
            paired), and when there are more than 1,000 × 1,000 pairs of \
            them (--rename-limit, as git's diff.renameLimit), none is read, \
            only moves of unchanged files are found, and a note says so on \
            standard error.

            With --patch (-p, or -U N), each changed file's line is followed by \
            what changed inside it. Text (no NUL byte in its first 8,000 bytes) \
            gets a unified diff as diff -u prints it, headed --- a/PATH and \
            +++ b/PATH so that patch -p1 applies the output; other contents get \
            the first differing byte and the bytes from there. Only files whose \
            digests differ are read, at most --max-diff-bytes of each; a \
            manifest holds digests, not contents, and says so. With --structured, \
            JSON and property-list files (XML or binary) are compared as data: \
            one line per key or element added (+), removed (-) or changed, by \
            its JSON Pointer path (/pages/3/title: "a" -> "b"), or "formatting \
            only" when just key order, whitespace or encoding changed; one that \
            expands past --max-structured-nodes nodes (values, each counted \
            wherever a binary property list refers to it), nests deeper than 512 \
            levels or contains itself is not compared as data, says so \
            ("not compared: the property list expands past 1000000 nodes, \
            raise with --max-structured-nodes") and gets the patch of its bytes. \
            A file that is an archive on both sides is compared as a tree, its \
            changes and patches indented under it, --max-nested-depth (3) \
            archives deep; together, the nested archives of one comparison may \
            expand to --max-nested-bytes (256 MiB) and hold --max-nested-entries \
            (100000) entries. Past a limit, a nested archive is not compared as \
            a tree ("not compared: nested archives expand past 268435456 bytes, \
            raise with --max-nested-bytes") and gets the first differing bytes; \
            this is not an error. Files are read a batch at a time (16 MiB a \
            side), and each batch's patches are printed before the next is \
            read, so memory stays bounded however many files changed; an \
            archive that is not a zip is read twice a batch.

            With --html FILE, the same comparison is also written as one \
            page that needs nothing else (no network, no other file): the \
            tree after the change with each change marked and removed entries \
            struck through, each changed file's patch to unfold (JSON and \
            property lists compared as data), and size maps of both trees, \
            each file a box whose area is its size, coloured by its change.

            With --versions-of DOC, OLD and NEW name versions of the document \
            DOC that its saves kept: an id that wrapinspect versions DOC lists, \
            or current for the document as it is.

            Exit status: 0 when the trees are the same (nothing is printed), 1 \
            when they differ, 2 on trouble (a missing or unreadable input, bad \
            usage).

            Examples:
              wrapinspect diff Travel.journal Travel-edited.journal
              wrapinspect diff -p Travel.journal Travel.journal.zip
              wrapinspect diff before.json Travel.journal.zip --ignore mtime,owner
              wrapinspect diff A.zip B.tar.zst --json
              wrapinspect diff --versions-of Travel.journal 20261202T133316.123456789Z current
            """
    )

    @Argument(help: "The tree before: a directory, file, archive or manifest file (with --versions-of, a version's id or current).", completion: .file())
    var old: String

    @Argument(help: "The tree after.", completion: .file())
    var new: String

    @Option(help: ArgumentHelp(
        "Compare two versions of this document: OLD and NEW are ids that wrapinspect versions lists, or current for the document.",
        valueName: "document"), completion: .file())
    var versionsOf: String?

    @Option(help: ArgumentHelp(
        "Metadata fields not to compare, separated by commas or given again: mtime, mode, owner, xattrs.",
        valueName: "fields"), completion: .list(["mtime", "mode", "owner", "xattrs"]))
    var ignore: [String] = []

    @Flag(name: [.customShort("p"), .long], help: "Show what changed inside each changed file: a unified diff for text, the first differing bytes for the rest.")
    var patch = false

    @Option(name: [.customShort("U"), .customLong("unified")], help: ArgumentHelp(
        "Lines of context around each change in a patch (default 3); implies --patch.", valueName: "n"))
    var context: Int?

    @Flag(help: "With a patch, compare JSON and property-list files as data: changed keys and values by path; key order and formatting are not changes. Implies --patch.")
    var structured = false

    @Option(help: ArgumentHelp(
        "Read at most this many bytes of each changed file for its patch (default 1048576, 1 MiB); a larger file gets the binary summary of its first bytes.",
        valueName: "bytes"))
    var maxDiffBytes: Int = 1 << 20

    @Option(help: ArgumentHelp(
        "With --structured, compare a JSON or property-list file as data only when it holds at most this many nodes (values, each counted wherever it is referred to) (default 1000000).",
        valueName: "n"))
    var maxStructuredNodes: Int = StructuredValue.defaultMaxNodes

    @Option(help: ArgumentHelp(
        "With a patch, compare an archive inside an archive as a tree at most this many archives deep (default 3; 0 compares none).",
        valueName: "n"))
    var maxNestedDepth: Int = NestedArchiveBudget.Limits().maxDepth

    @Option(help: ArgumentHelp(
        "With a patch, at most this many bytes of contents for all nested archives together, both sides (default 268435456, 256 MiB).",
        valueName: "bytes"))
    var maxNestedBytes: Int64 = NestedArchiveBudget.Limits().maxBytes

    @Option(help: ArgumentHelp(
        "With a patch, at most this many entries in all nested archives together, both sides (default 100000).",
        valueName: "n"))
    var maxNestedEntries: Int = NestedArchiveBudget.Limits().maxEntries

    @Option(name: [.customShort("M"), .customLong("find-renames")], help: ArgumentHelp(
        "How alike in percent a removed and an added file must be to show as a move of a changed file (default 50, as git diff -M); 100 finds moves of unchanged files only.",
        valueName: "percent"))
    var findRenames: Int = 50

    @Option(help: ArgumentHelp(
        "Look for moves of changed files only when there are at most this many removed × this many added files (default 1000, as git's diff.renameLimit).",
        valueName: "n"))
    var renameLimit: Int = SimilarFiles.limit

    @Option(help: ArgumentHelp(
        "Also write one self-contained HTML page to this file: the tree with changes marked, each patch (JSON and property lists compared as data), and size maps before and after.",
        valueName: "file"), completion: .file(extensions: ["html"]))
    var html: String?

    @Flag(help: "Print one JSON object for programs instead of text.")
    var json = false

    @Option(help: ArgumentHelp("Colour the text: auto (on a terminal, unless NO_COLOR is set), always or never.", valueName: "when"))
    var color: ColorChoice = .auto

    @OptionGroup var input: InputOptions

    func validate() throws {
        if old.isEmpty || new.isEmpty {
            throw ValidationError("OLD and NEW must not be empty.")
        }
        _ = try ignoredFields()
        if let context, context < 0 {
            throw ValidationError("--unified must be 0 or more.")
        }
        if !(1...100).contains(findRenames) {
            throw ValidationError("--find-renames must be from 1 to 100.")
        }
        if !(0...1_000_000).contains(renameLimit) {
            throw ValidationError("--rename-limit must be from 0 to 1000000.")
        }
        for (flag, value) in [("--max-diff-bytes", Int64(maxDiffBytes)), ("--max-structured-nodes", Int64(maxStructuredNodes)),
                              ("--max-nested-bytes", maxNestedBytes), ("--max-nested-entries", Int64(maxNestedEntries))] where value <= 0 {
            throw ValidationError("\(flag) must be more than 0.")
        }
        if maxNestedDepth < 0 {
            throw ValidationError("--max-nested-depth must be 0 or more.")
        }
    }

    /// The fields `--ignore` names.
    private func ignoredFields() throws -> Set<ManifestDiff.Field> {
        var fields: Set<ManifestDiff.Field> = []
        for name in ignore.flatMap({ $0.split(separator: ",") }) {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let field = ManifestDiff.Field(rawValue: trimmed) else {
                throw ValidationError("Unknown field \"\(trimmed)\" for --ignore; use mtime, mode, owner or xattrs.")
            }
            fields.insert(field)
        }
        return fields
    }

    func run() throws {
        let settings = DiffPatches.Settings(
            context: context ?? 3, maxBytes: maxDiffBytes, structured: structured, maxStructuredNodes: maxStructuredNodes,
            ignoring: try ignoredFields(), options: ManifestReadOptions(hashingContents: false, formats: input.formats, limits: input.limits),
            minimumSimilarity: findRenames, renameLimit: renameLimit,
            nested: NestedArchiveBudget.Limits(maxDepth: maxNestedDepth, maxBytes: maxNestedBytes, maxEntries: maxNestedEntries))
        var (old, new) = (self.old, self.new)
        if let versionsOf {
            (old, new) = (try Versions.path(of: old, ofDocument: versionsOf), try Versions.path(of: new, ofDocument: versionsOf))
        }
        let (oldManifest, newManifest) = try (input.manifest(of: old), input.manifest(of: new))
        let diff = try DiffPatches.diff(from: oldManifest, to: newManifest, old: .path(old), new: .path(new), settings: settings)
        if diff.similarMovesSkipped {
            printError("note: over \(renameLimit) × \(renameLimit) removed and added files, so moves of changed files were not looked for (--rename-limit)")
        }
        let rendering = DiffRendering(diff: diff)
        let textPatches = patch || context != nil || structured
            ? DiffPatches(of: diff, old: .path(old), new: .path(new), settings: settings) : nil
        // The page compares JSON and property lists as data, whatever the text output does.
        var pageSettings = settings
        pageSettings.structured = true
        var page = HtmlDiffReport.Patches()
        // With --structured the text's patches are the page's: each is made once, for both.
        let sharesPatches = html != nil && textPatches != nil && structured
        if html != nil, !sharesPatches {
            try DiffPatches(of: diff, old: .path(old), new: .path(new), settings: pageSettings).forEach { index, patch in
                try page.add(patch, index: index, of: diff, settings: pageSettings)
            }
        }
        let patches: DiffRendering.Patches? = textPatches.map { textPatches in
            { body in
                try textPatches.forEach { index, patch in
                    if sharesPatches { try page.add(patch, index: index, of: diff, settings: pageSettings) }
                    try body(index, patch)
                }
            }
        }
        if json {
            try rendering.writeJSON(settings: settings, patches: patches) { try StandardOutput.write(Data($0.utf8)) }
            try StandardOutput.write(Data([UInt8(ascii: "\n")]))
        } else {
            try rendering.write(colored: color.colorsOutput(), settings: settings, patches: patches) { line in
                try StandardOutput.write(Data(line + [UInt8(ascii: "\n")]))
            }
        }
        if let html {
            try HtmlDiffReport(diff: diff, patches: page, old: oldManifest, new: newManifest, oldName: old, newName: new)
                .page.write(to: html)
        }
        if !diff.isEmpty {
            throw ExitCode(1)
        }
    }
}
