import FileWrapperKit

/// A tree as nested HTML lists, folders collapsible (`<details open>`),
/// each entry with its marker, name and facts, a changed entry marked by
/// the class of its change and followed by its patch, if any, in a
/// collapsed `<details>`.
struct HtmlTreeList {
    /// One entry of the list.
    struct Row {
        var path: [UInt8]
        var isDirectory: Bool
        /// The change's class (`added`, `removed`, `contents`, `kind`,
        /// `metadata`, `moved`); nil for an unchanged entry.
        var change: String?
        var marker: String = ""
        /// Escaped HTML after the name.
        var facts: String = ""
        /// Escaped HTML of the patch, shown under the entry.
        var patch: String?
    }

    /// Folders and files of a listing with no changes marked, by manifest order.
    static func rows(of manifest: Manifest) -> [Row] {
        manifest.entries.filter { !$0.path.isEmpty }.map { entry in
            Row(path: entry.path, isDirectory: entry.kind == .directory, facts: HtmlText.escaped(facts(entry)))
        }
    }

    /// An entry's size, link target or kind, for people.
    static func facts(_ entry: ManifestEntry) -> String {
        switch entry.kind {
        case .file: entry.size.map(Format.size) ?? ""
        case .hardLink: "hard link to \(PathDisplay.text(entry.linkTarget ?? []))"
        case .symlink: "-> \(PathDisplay.text(entry.linkTarget ?? []))"
        case .directory: ""
        case .other: "device, FIFO or socket"
        }
    }

    /// How many entries a page lists; a larger tree lists its changed
    /// entries and the folders above them (or its first entries when none
    /// changed), so that the page stays one a browser opens.
    static let maxRows = 5_000

    /// `rows` (in manifest order, parents before what is below them) as a
    /// nested list, at most ``maxRows`` of them.
    static func html(_ rows: [Row], rootName: String) -> String {
        var rows = rows, note = ""
        if rows.count > maxRows {
            let all = rows.count
            var kept: Set<[UInt8]> = []
            for row in rows where row.change != nil && kept.count < maxRows {
                var current: [UInt8]? = row.path
                while let path = current, !path.isEmpty, kept.insert(path).inserted { current = ManifestPath.parent(of: path) }
            }
            rows = kept.isEmpty ? Array(rows.prefix(maxRows)) : rows.filter { kept.contains($0.path) }
            note = "<p class=\"note\">\(all - rows.count) of \(all) entries not listed: \(kept.isEmpty ? "the first \(maxRows) are" : "the changed ones and the folders above them are").</p>"
        }
        var parts = [note + "<ul class=\"tree\"><li><details open><summary class=\"row\"><span class=\"name\">\(HtmlText.escaped(rootName))/</span></summary><ul>"]
        var open: [[UInt8]] = []
        for row in rows {
            while let last = open.last, !ManifestPath.isWithin(row.path, last) {
                parts.append("</ul></details></li>")
                open.removeLast()
            }
            let changed = row.change != nil
            let item = "<li\(changed ? " class=\"changed\"" : "")>"
            let marker = "<span class=\"marker\">\(HtmlText.escaped(row.marker))</span>"
            let name = "<span class=\"name\">\(HtmlText.name(row.path.split(separator: UInt8(ascii: "/")).last ?? []))\(row.isDirectory ? "/" : "")</span>"
            let facts = row.facts.isEmpty ? "" : "<span class=\"facts\">\(row.facts)</span>"
            let rowClass = "row" + (row.change.map { " c-\($0)" } ?? "")
            if row.isDirectory {
                parts.append("\(item)<details open><summary class=\"\(rowClass)\">\(marker)\(name)\(facts)</summary>\(row.patch ?? "")<ul>")
                open.append(row.path)
            } else {
                parts.append("\(item)<div class=\"\(rowClass)\">\(marker)\(name)\(facts)</div>\(row.patch ?? "")</li>")
            }
        }
        parts.append(String(repeating: "</ul></details></li>", count: open.count))
        parts.append("</ul></details></li></ul>")
        return parts.joined(separator: "\n")
    }
}
