import FileWrapperDocument
import Foundation

/// The lines `dump` prints for a wrapper's tree: depth first, children
/// sorted by the bytes of their names, with box-drawing lines (`├──`,
/// `└──`, `│`). Walks with an explicit stack, so any depth is fine, and
/// asks only for attributes, never for file contents.
struct TreeListing {
    /// One entry's line.
    struct Line {
        /// Kind and permission bits, as `ls -l` shows them (`drwxr-xr-x`).
        var mode: String
        /// A regular file's size for people (`12.3 KiB`); empty for other kinds.
        var size: String
        /// The tree drawing and the name, with `/` or `-> target`.
        var entry: String
        /// How many entries below this directory the depth limit leaves out.
        var hidden = 0
    }

    /// Counts of the entries below the root, and the bytes of its regular files.
    struct Totals {
        var directories: Int64 = 0
        var files: Int64 = 0
        var symlinks: Int64 = 0
        var bytes: Int64 = 0

        /// `6 directories, 6 files, 2 symlinks, 314182 bytes (306.8 KiB)`.
        var summary: String {
            var text = [
                Format.count(directories, "directory", "directories"),
                Format.count(files, "file", "files"),
                Format.count(symlinks, "symlink", "symlinks"),
                Format.count(bytes, "byte", "bytes"),
            ].joined(separator: ", ")
            if bytes >= 1024 {
                text += " (\(Format.size(bytes)))"
            }
            return text
        }
    }

    private(set) var lines: [Line] = []
    private(set) var totals = Totals()

    /// An entry still to be listed.
    private struct Pending {
        let wrapper: FileWrapper
        let name: String
        let depth: Int
        /// The drawing that precedes this entry's connector.
        let prefix: String
        let isLast: Bool
        /// The line of the directory whose hidden count this entry adds to,
        /// when the depth limit leaves it out.
        let hiddenUnder: Int?
    }

    /// Lists `root`, shown as `rootName` (the path as the user gave it),
    /// and the entries at most `maxDepth` levels below it.
    init(_ root: FileWrapper, rootName: String, maxDepth: Int?) {
        var shownRoot = rootName
        while shownRoot.count > 1, shownRoot.hasSuffix("/") {
            shownRoot.removeLast()
        }
        lines.append(Self.line(for: root, entry: Format.name(shownRoot.utf8), addSlash: !shownRoot.hasSuffix("/")))
        if !root.isDirectory {
            count(root)
            return
        }

        var stack: [Pending] = []
        func push(childrenOf directory: FileWrapper, depth: Int, prefix: String, hiddenUnder: Int?) {
            let children = Self.sortedChildren(of: directory)
            for (index, child) in children.enumerated().reversed() {
                stack.append(Pending(
                    wrapper: child.wrapper, name: child.name, depth: depth, prefix: prefix,
                    isLast: index == children.count - 1, hiddenUnder: hiddenUnder))
            }
        }
        push(childrenOf: root, depth: 1, prefix: "", hiddenUnder: maxDepth == 0 ? 0 : nil)

        while let item = stack.popLast() {
            count(item.wrapper)
            if let hiddenUnder = item.hiddenUnder {
                lines[hiddenUnder].hidden += 1
                if item.wrapper.isDirectory {
                    push(childrenOf: item.wrapper, depth: item.depth + 1, prefix: "", hiddenUnder: hiddenUnder)
                }
                continue
            }
            let connector = item.isLast ? "└── " : "├── "
            lines.append(Self.line(for: item.wrapper, entry: item.prefix + connector + Format.name(item.name.utf8), addSlash: true))
            if item.wrapper.isDirectory {
                let atLimit = maxDepth.map { item.depth >= $0 } ?? false
                push(
                    childrenOf: item.wrapper, depth: item.depth + 1,
                    prefix: item.prefix + (item.isLast ? "    " : "│   "),
                    hiddenUnder: atLimit ? lines.count - 1 : nil)
            }
        }
    }

    /// The lines as printed: mode, size right-aligned in a column (left out
    /// when no file is shown), then the tree.
    func renderedLines() -> [String] {
        let width = lines.map(\.size.count).max() ?? 0
        return lines.map { line in
            var text = line.mode + "  "
            if width > 0 {
                text += String(repeating: " ", count: width - line.size.count) + line.size + "  "
            }
            text += line.entry
            if line.hidden > 0 {
                text += " (\(Format.count(Int64(line.hidden), "entry", "entries")) not shown)"
            }
            return text
        }
    }

    /// Adds `wrapper` to the totals.
    private mutating func count(_ wrapper: FileWrapper) {
        if wrapper.isDirectory {
            totals.directories += 1
        } else if wrapper.isSymbolicLink {
            totals.symlinks += 1
        } else {
            totals.files += 1
            totals.bytes += Self.size(of: wrapper) ?? 0
        }
    }

    /// A directory's children, sorted by the UTF-8 bytes of their names.
    private static func sortedChildren(of directory: FileWrapper) -> [(name: String, wrapper: FileWrapper)] {
        (directory.fileWrappers ?? [:])
            .map { (name: $0.key, wrapper: $0.value) }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The line for one entry; `entry` is the drawing and the name so far.
    private static func line(for wrapper: FileWrapper, entry: String, addSlash: Bool) -> Line {
        let permissions = (wrapper.fileAttributes[FileAttributeKey.posixPermissions.rawValue] as? NSNumber)?.uint16Value ?? 0
        if wrapper.isDirectory {
            return Line(mode: Format.mode(kind: "d", permissions: permissions), size: "", entry: entry + (addSlash ? "/" : ""))
        }
        if wrapper.isSymbolicLink {
            let target = Format.name(wrapper.symbolicLinkDestinationBytes ?? [])
            return Line(mode: Format.mode(kind: "l", permissions: permissions), size: "", entry: entry + " -> " + target)
        }
        let size = self.size(of: wrapper).map(Format.size) ?? "?"
        return Line(mode: Format.mode(kind: "-", permissions: permissions), size: size, entry: entry)
    }

    /// A regular file's size from its attributes (known without reading it).
    private static func size(of wrapper: FileWrapper) -> Int64? {
        (wrapper.fileAttributes[FileAttributeKey.size.rawValue] as? NSNumber)?.int64Value
    }
}
