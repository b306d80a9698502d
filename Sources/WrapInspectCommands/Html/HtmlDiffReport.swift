import FileWrapperKit

/// The page of `wrapinspect diff --html`: the summary, the tree after the
/// change with what changed marked (and what was removed, struck through),
/// each changed file's patch under it, the structured changes of JSON and
/// property-list parts in a table, and size maps of both trees.
struct HtmlDiffReport {
    /// What the page shows of the patches, kept as each is made (the
    /// patches themselves, and the contents they were made of, are not).
    struct Patches {
        /// Each patch's lines, uncoloured, by change index.
        var lines: [Int: [[UInt8]]] = [:]
        /// The rows of the table of structured changes, in change order.
        var structuredRows: [String] = []

        /// Keeps what the page shows of `patch`, change `index`'s of `diff`.
        mutating func add(_ patch: DiffPatches.Patch, index: Int, of diff: ManifestDiff, settings: DiffPatches.Settings) throws {
            let change = diff.changes[index]
            lines[index] = try DiffPatches.lines(of: patch, for: change, settings: settings, colored: false)
            guard case .structured(let structured) = patch else { return }
            let file = HtmlText.name(change.new!.path)
            if structured.isFormattingOnly {
                structuredRows.append("<tr><td>\(file)</td><td colspan=\"3\">formatting only, the same data</td></tr>")
            }
            for item in structured.changes {
                let before = item.old.map { HtmlText.escaped($0.summary()) } ?? "", after = item.new.map { HtmlText.escaped($0.summary()) } ?? ""
                structuredRows.append("<tr class=\"s-\(item.kind.rawValue)\"><td>\(file)</td><td>\(HtmlText.escaped(item.pointer))</td><td>\(before)</td><td>\(after)</td></tr>")
            }
        }
    }

    let diff: ManifestDiff
    let patches: Patches
    let old: Manifest
    let new: Manifest
    let oldName: String
    let newName: String

    var page: HtmlPage {
        let rendering = DiffRendering(diff: diff)
        var page = HtmlPage(title: "wrapinspect diff \(oldName) \(newName)")
        page.body.append("<p class=\"summary\">\(HtmlText.escaped(diff.isEmpty ? "No changes" : rendering.summary))</p>")
        page.body.append("<h2>Tree</h2>")
        page.body.append(HtmlTreeList.html(rows(lines: rendering.textLines(colored: false)), rootName: newName))
        if let structured = structuredTable() {
            page.body.append("<h2>Structured changes</h2>")
            page.body.append(structured)
        }
        page.body.append("<h2>Size map</h2>")
        page.body.append(HtmlSizeMaps.html([
            ("Before: \(oldName)", HtmlTreemap(old, status: status(old: true))),
            ("After: \(newName)", HtmlTreemap(new, status: status(old: false))),
        ]))
        return page
    }

    /// The class of a change, as the page and the size map mark it.
    static func changeClass(_ kind: ManifestDiff.Change.Kind) -> String { kind.rawValue }

    /// The rows: every entry of the new tree, those a change is about
    /// marked (and those below an added folder), and the entries of the
    /// removed subtrees from the old tree; `lines` are the changes' text
    /// lines, marker first, by index.
    private func rows(lines: [String]) -> [HtmlTreeList.Row] {
        var byNewPath: [[UInt8]: Int] = [:], removedRoots: Set<[UInt8]> = [], addedRoots: Set<[UInt8]> = [], movedFrom: Set<[UInt8]> = []
        /// Whether `path` or a folder above it is in `roots`.
        func isBelow(_ path: [UInt8], _ roots: Set<[UInt8]>) -> Bool {
            var current: [UInt8]? = path
            while let path = current {
                if roots.contains(path) { return true }
                current = ManifestPath.parent(of: path)
            }
            return false
        }
        for (index, change) in diff.changes.enumerated() {
            switch change.kind {
            case .removed: removedRoots.insert(change.old!.path)
            case .added: addedRoots.insert(change.new!.path); byNewPath[change.new!.path] = index
            case .moved: movedFrom.insert(change.old!.path); byNewPath[change.new!.path] = index
            default: byNewPath[change.new!.path] = index
            }
        }
        var rows: [HtmlTreeList.Row] = []
        for entry in new.entries where !entry.path.isEmpty {
            var row = HtmlTreeList.Row(path: entry.path, isDirectory: entry.kind == .directory, facts: HtmlText.escaped(HtmlTreeList.facts(entry)))
            if let index = byNewPath[entry.path] {
                let change = diff.changes[index]
                row.change = Self.changeClass(change.kind)
                // The change's line without its marker and path (a move keeps
                // both paths): sizes, targets, metadata.
                row.marker = String(lines[index].prefix(1))
                let text = lines[index].dropFirst(2)
                let path = change.entry.displayPath + (change.entry.kind == .directory ? "/" : "")
                row.facts = HtmlText.escaped(change.kind != .moved && text.hasPrefix(path) ? String(text.dropFirst(path.count)) : String(text))
                row.patch = patch(index)
            } else if isBelow(entry.path, addedRoots) {
                row.change = "added"
                row.marker = "+"
            }
            rows.append(row)
        }
        for entry in old.entries where !removedRoots.isEmpty && isBelow(entry.path, removedRoots) && !isBelow(entry.path, movedFrom) {
            rows.append(HtmlTreeList.Row(path: entry.path, isDirectory: entry.kind == .directory, change: "removed", marker: "-",
                                         facts: HtmlText.escaped(HtmlTreeList.facts(entry))))
        }
        return rows.sorted { ManifestPath.precedes($0.path, $1.path) }
    }

    /// Change `index`'s patch as a collapsed `<details>`, each line
    /// classed as `git diff` colours it; nil when it has none.
    private func patch(_ index: Int) -> String? {
        guard let lines = patches.lines[index], !lines.isEmpty else { return nil }
        let body = lines.map { line -> String in
            let significant = line.starts(with: Array("  ".utf8)) ? Array(line.drop { $0 == UInt8(ascii: " ") }) : line
            let kind = if significant.starts(with: Array("+++ ".utf8)) || significant.starts(with: Array("--- ".utf8)) {
                "l-head"
            } else if significant.starts(with: Array("@@".utf8)) {
                "l-hunk"
            } else if significant.first == UInt8(ascii: "+") {
                "l-add"
            } else if significant.first == UInt8(ascii: "-") {
                "l-del"
            } else {
                "l-ctx"
            }
            return "<span class=\"\(kind)\">\(HtmlText.line(line))</span>"
        }
        return "<details class=\"patch\"><summary>patch</summary><pre class=\"patch\">\(body.joined())</pre></details>"
    }

    /// A table of every structured change: file, path in it, before, after.
    private func structuredTable() -> String? {
        guard !patches.structuredRows.isEmpty else { return nil }
        return "<table class=\"structured\"><tr><th>file</th><th>path</th><th>before</th><th>after</th></tr>\(patches.structuredRows.joined())</table>"
    }

    /// The change class of each path of one side, for its size map.
    private func status(old side: Bool) -> ([UInt8]) -> String? {
        var classes: [[UInt8]: String] = [:]
        for change in diff.changes {
            switch change.kind {
            case .removed: if side { classes[change.old!.path] = "removed" }
            case .added: if !side { classes[change.new!.path] = "added" }
            case .moved: classes[side ? change.old!.path : change.new!.path] = change.movedWithChanges ? "contents" : "moved"
            default: classes[(side ? change.old : change.new)!.path] = Self.changeClass(change.kind)
            }
        }
        return { classes[$0] }
    }
}

/// Size maps side by side, each with its caption, and their legend.
enum HtmlSizeMaps {
    static func html(_ maps: [(String, HtmlTreemap)], legend: Bool = true) -> String {
        let figures = maps.map { caption, map in
            "<figure class=\"map\"><figcaption>\(HtmlText.escaped(caption))</figcaption>\(map.svg(label: "Size map of \(caption)"))</figure>"
        }
        let key = legend ? "<p class=\"legend\">" + HtmlTreemap.legend.map { "<span><i style=\"background:\($0.1)\"></i>\($0.0)</span>" }.joined()
            + "<span>Each box's area is its size; boxes inside a box are the entries of a folder.</span></p>" : ""
        return "<div class=\"maps\">\(figures.joined())</div>\(key)"
    }
}
