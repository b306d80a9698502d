import FileWrapperKit
import Foundation

/// The lines `dump` prints for a manifest: its entries in manifest order
/// (depth first, children sorted by the bytes of their names), drawn with
/// box-drawing lines (`├──`, `└──`, `│`).
struct TreeListing {
    /// One entry's line.
    struct Line {
        /// Kind and permission bits, as `ls -l` shows them (`drwxr-xr-x`);
        /// `?` for what the source does not record.
        var mode: String
        /// A file's size for people (`12.3 KiB`); empty for other kinds.
        var size: String
        /// A file's SHA-256 or a directory's tree digest, in hexadecimal, with `--digests`.
        var digest: String
        /// The tree drawing and the name, with `/` or `-> target`.
        var entry: String
        /// How many entries below this directory the depth limit leaves out.
        var hidden = 0
        /// Why the entry could not be read, when it could not
        /// (`Permission denied, EACCES`).
        var unreadable: String?
    }

    /// Counts of the entries below the root, and the bytes of its files.
    struct Totals {
        var directories: Int64 = 0
        var files: Int64 = 0
        var symlinks: Int64 = 0
        var others: Int64 = 0
        var bytes: Int64 = 0

        /// `6 directories, 6 files, 2 symlinks, 314182 bytes (306.8 KiB)`.
        var summary: String {
            var parts = [
                Format.count(directories, "directory", "directories"),
                Format.count(files, "file", "files"),
                Format.count(symlinks, "symlink", "symlinks"),
            ]
            if others > 0 {
                parts.append(Format.count(others, "other entry", "other entries"))
            }
            parts.append(Format.count(bytes, "byte", "bytes"))
            var text = parts.joined(separator: ", ")
            if bytes >= 1024 {
                text += " (\(Format.size(bytes)))"
            }
            return text
        }
    }

    private(set) var lines: [Line] = []
    private(set) var totals = Totals()
    private let showsDigests: Bool

    /// Lists `manifest`, its root shown as `rootName` (the path as the user
    /// gave it), down to `maxDepth` levels below the root; with
    /// `showsDigests`, each file's and directory's digest.
    init(_ manifest: Manifest, rootName: String, maxDepth: Int?, showsDigests: Bool) {
        self.showsDigests = showsDigests
        var shownRoot = rootName
        while shownRoot.count > 1, shownRoot.hasSuffix("/") {
            shownRoot.removeLast()
        }
        let root = manifest.root
        let rootSuffix = root.kind == .directory && !shownRoot.hasSuffix("/") ? "/" : ""
        lines.append(line(for: root, entry: Format.name(shownRoot.utf8) + rootSuffix, unreadable: manifest.unreadableError(at: 0)))
        if root.kind != .directory {
            count(root)
            return
        }

        let isLast = Self.lastChildren(of: manifest)
        // Whether each ancestor of the current entry is its parent's last
        // child, by depth, to draw the vertical lines.
        var ancestorsAreLast: [Bool] = []
        // The line of the directory at the depth limit that hidden entries count toward.
        var hiddenUnder: (line: Int, path: [UInt8])?
        for (index, entry) in manifest.entries.enumerated().dropFirst() {
            count(entry)
            let depth = entry.path.count { $0 == UInt8(ascii: "/") } + 1
            if let limit = hiddenUnder, ManifestPath.isWithin(entry.path, limit.path) {
                lines[limit.line].hidden += 1
                continue
            }
            hiddenUnder = nil
            if let maxDepth, depth > maxDepth {
                // Only at depth 1 with --max-depth 0: the root counts them.
                lines[0].hidden += 1
                continue
            }
            ancestorsAreLast.removeLast(max(0, ancestorsAreLast.count - (depth - 1)))
            let prefix = ancestorsAreLast.map { $0 ? "    " : "│   " }.joined()
            let connector = isLast[index] ? "└── " : "├── "
            lines.append(line(for: entry, entry: prefix + connector + Format.name(entry.name), unreadable: manifest.unreadableError(at: index)))
            ancestorsAreLast.append(isLast[index])
            if entry.kind == .directory, let maxDepth, depth >= maxDepth {
                hiddenUnder = (lines.count - 1, entry.path)
            }
        }
    }

    /// The lines as printed: mode, size right-aligned in a column (left out
    /// when no file is shown), the digest with `--digests`, then the tree.
    func renderedLines() -> [String] {
        let width = lines.map(\.size.count).max() ?? 0
        return lines.map { line in
            var text = line.mode + "  "
            if width > 0 {
                text += String(repeating: " ", count: width - line.size.count) + line.size + "  "
            }
            if showsDigests {
                text += line.digest.padding(toLength: 64, withPad: " ", startingAt: 0) + "  "
            }
            text += line.entry
            if line.hidden > 0 {
                text += " (\(Format.count(Int64(line.hidden), "entry", "entries")) not shown)"
            }
            if let unreadable = line.unreadable {
                text += "  [unreadable: \(unreadable)]"
            }
            return text
        }
    }

    /// For each entry, whether it is the last child of its directory.
    private static func lastChildren(of manifest: Manifest) -> [Bool] {
        var isLast = Array(repeating: false, count: manifest.entries.count)
        var parentsWithLaterChild: Set<[UInt8]> = []
        for (index, entry) in manifest.entries.enumerated().reversed() {
            guard let parent = ManifestPath.parent(of: entry.path) else { continue }
            isLast[index] = parentsWithLaterChild.insert(parent).inserted
        }
        return isLast
    }

    /// Adds `entry` to the totals.
    private mutating func count(_ entry: ManifestEntry) {
        switch entry.contentKind {
        case .directory: totals.directories += 1
        case .symlink: totals.symlinks += 1
        case .other: totals.others += 1
        case .file, .hardLink:
            totals.files += 1
            totals.bytes += entry.size ?? 0
        }
    }

    /// The line for one entry; `entry` is the drawing and the name so far,
    /// `unreadable` why the entry could not be read.
    private func line(for entry: ManifestEntry, entry text: String, unreadable: FileWrapperError?) -> Line {
        var line = line(for: entry, entry: text)
        line.unreadable = unreadable.map(Self.reason)
        return line
    }

    /// What went wrong, without the path the line shows:
    /// `Permission denied (EACCES)`.
    private static func reason(_ error: FileWrapperError) -> String {
        guard let code = error.errno else { return error.detail ?? "\(error.code)" }
        return "\(code.description) (\(FileWrapperError.symbol(for: code)))"
    }

    private func line(for entry: ManifestEntry, entry text: String) -> Line {
        let permissions = entry.permissions.map { Format.mode(kind: Self.kindLetter(entry.kind), permissions: $0) }
            ?? String(Self.kindLetter(entry.kind)) + "?????????"
        let digest = showsDigests ? (entry.contentDigest ?? entry.treeDigest)?.hex ?? "" : ""
        switch entry.kind {
        case .directory:
            return Line(mode: permissions, size: "", digest: digest, entry: text + (entry.path.isEmpty ? "" : "/"))
        case .symlink:
            return Line(mode: permissions, size: "", digest: digest, entry: text + " -> " + Format.name(entry.linkTarget ?? []))
        case .hardLink:
            let size = entry.size.map(Format.size) ?? "?"
            return Line(mode: permissions, size: size, digest: digest, entry: text + " => " + Format.name(entry.linkTarget ?? []))
        case .file, .other:
            let size = entry.kind == .file ? entry.size.map(Format.size) ?? "?" : ""
            return Line(mode: permissions, size: size, digest: digest, entry: text)
        }
    }

    /// The letter `ls -l` shows for a kind; a hard link is a file, and `?`
    /// stands for a device node, FIFO or socket.
    private static func kindLetter(_ kind: ManifestEntry.Kind) -> Character {
        switch kind {
        case .directory: "d"
        case .symlink: "l"
        case .file, .hardLink: "-"
        case .other: "?"
        }
    }
}
