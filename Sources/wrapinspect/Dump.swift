import ArgumentParser
import FileWrapperDocument
import Foundation

/// `wrapinspect dump PATH`: the tree of a file, directory or package, one
/// line per entry, like `tree` crossed with `ls -l`.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the tree of a document package, one line per entry.",
        discussion: """
            Each line shows the kind and permission bits (as ls -l does), the \
            size of a regular file, and the entry's place in the tree; \
            directories end in "/", symbolic links show "-> target" and are not \
            followed. Entries are sorted by the bytes of their names. File \
            contents are never read. The last line counts every entry below \
            PATH, including those that --max-depth leaves out, and adds up \
            the sizes of the regular files.
            """
    )

    @Argument(help: "The file, directory or package to show.")
    var path: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Show entries at most this many levels below PATH (0 shows PATH alone).", valueName: "n"))
    var maxDepth: Int?

    func validate() throws {
        if path.isEmpty {
            throw ValidationError("PATH must not be empty.")
        }
        if let maxDepth, maxDepth < 0 {
            throw ValidationError("--max-depth must be 0 or more, not \(maxDepth).")
        }
    }

    func run() throws {
        // Reads kinds, names and attributes of the whole tree; no contents.
        let wrapper = try FileWrapper(url: URL(fileURLWithPath: path))
        let listing = TreeListing(wrapper, rootName: path, maxDepth: maxDepth)
        for line in listing.renderedLines() {
            print(line)
        }
        print(listing.totals.summary)
    }
}
