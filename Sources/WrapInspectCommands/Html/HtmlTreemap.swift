import FileWrapperKit
import Foundation

/// A size map of a tree, drawn as an inline SVG treemap: each folder a box
/// holding its entries' boxes, each file's area in proportion to its size
/// (squarified, Bruls, Huizing and van Wijk 2000, so boxes stay near
/// square), so the folders and files that take the space stand out.
/// Laid out here, not in the browser. Files are coloured by the change
/// `status` gives them (a change's class), else by their top-level folder.
struct HtmlTreemap {
    /// A folder or file, with its size in bytes (a folder's: all below it).
    private struct Node {
        var path: [UInt8]
        var name: ArraySlice<UInt8>
        var size: Int64
        var isDirectory: Bool
        var children: [Node]
    }

    private struct Box {
        var x: Double, y: Double, width: Double, height: Double
        var area: Double { width * height }
    }

    static let width = 640.0
    static let height = 400.0
    /// How many of a folder's largest entries get a box of their own; the rest share one.
    private static let boxesPerFolder = 200

    private let root: Node
    private let status: ([UInt8]) -> String?

    /// The map of `manifest`; `status` gives an entry's change class (by
    /// path), which entries below an added or removed folder take too.
    init(_ manifest: Manifest, status: @escaping ([UInt8]) -> String? = { _ in nil }) {
        self.status = status
        var index = 0
        root = manifest.entries.isEmpty
            ? Node(path: [], name: [], size: 0, isDirectory: true, children: [])
            : Self.node(in: manifest, at: &index)
    }

    /// The node at `index` with everything below it; `index` ends past its subtree.
    private static func node(in manifest: Manifest, at index: inout Int) -> Node {
        let entry = manifest.entries[index]
        index += 1
        guard entry.kind == .directory else {
            let size = entry.kind == .file ? entry.size ?? 0 : 0
            return Node(path: entry.path, name: entry.name, size: size, isDirectory: false, children: [])
        }
        var children: [Node] = []
        while index < manifest.entries.count, ManifestPath.parent(of: manifest.entries[index].path) == entry.path {
            children.append(node(in: manifest, at: &index))
        }
        let size = children.reduce(Int64(0)) { $0 + $1.size }
        return Node(path: entry.path, name: entry.name, size: size, isDirectory: true, children: children)
    }

    /// The SVG, with `label` read by screen readers.
    func svg(label: String) -> String {
        var parts = ["<svg viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\" aria-label=\"\(HtmlText.escaped(label))\">"]
        if root.size == 0 {
            parts.append("<text x=\"12\" y=\"24\">no bytes in files</text>")
        } else {
            draw(root, in: Box(x: 0, y: 0, width: Self.width, height: Self.height), depth: 0, hue: nil, inherited: nil, into: &parts)
        }
        parts.append("</svg>")
        return parts.joined()
    }

    private func draw(_ node: Node, in box: Box, depth: Int, hue: Double?, inherited: String?, into parts: inout [String]) {
        let change = status(node.path) ?? inherited
        let title = "<title>\(HtmlText.name(node.path)) \u{2014} \(HtmlText.escaped(Format.size(node.size)))\(change.map { " (\($0))" } ?? "")</title>"
        let rect = "x=\"\(Self.number(box.x))\" y=\"\(Self.number(box.y))\" width=\"\(Self.number(box.width))\" height=\"\(Self.number(box.height))\""
        guard node.isDirectory else {
            parts.append("<g><rect \(rect) fill=\"\(Self.fill(change, hue: hue ?? 210))\" stroke=\"#fff\" stroke-width=\"0.5\">\(title)</rect>")
            if box.width > 40, box.height > 14 { parts.append(label(node.name, in: box, y: box.y + 12)) }
            parts.append("</g>")
            return
        }
        var inner = box
        if depth > 0 {
            parts.append("<rect \(rect) fill=\"none\" stroke=\"#7d8799\" stroke-width=\"1\">\(title)</rect>")
            let header = box.width > 30 && box.height > 30 ? 14.0 : 0
            if header > 0 { parts.append(label(node.name, in: box, y: box.y + 11, bold: true)) }
            inner = Box(x: box.x + 2, y: box.y + 2 + header, width: max(0, box.width - 4), height: max(0, box.height - 4 - header))
        }
        guard inner.area >= 4 else { return }
        var children = node.children.filter { $0.size > 0 }.sorted { $0.size > $1.size }
        if children.count > Self.boxesPerFolder {
            let rest = children[Self.boxesPerFolder...]
            children = Array(children[..<Self.boxesPerFolder])
            children.append(Node(path: node.path, name: Array("\(rest.count) more".utf8)[...], size: rest.reduce(0) { $0 + $1.size },
                                 isDirectory: false, children: []))
        }
        let boxes = Self.squarified(children.map { Double($0.size) }, in: inner)
        for (position, (child, childBox)) in zip(children, boxes).enumerated() where childBox.area >= 2 {
            let childHue = hue ?? Double((position * 67) % 360)
            draw(child, in: childBox, depth: depth + 1, hue: childHue, inherited: change, into: &parts)
        }
    }

    /// A name inside `box`, cut to what fits.
    private func label(_ name: ArraySlice<UInt8>, in box: Box, y: Double, bold: Bool = false) -> String {
        let fits = max(1, Int((box.width - 6) / 6.2))
        let text = PathDisplay.text(name)
        let shown = text.count > fits ? String(text.prefix(max(1, fits - 1))) + "\u{2026}" : text
        return "<text x=\"\(Self.number(box.x + 3))\" y=\"\(Self.number(y))\"\(bold ? " font-weight=\"600\"" : "")>\(HtmlText.escaped(shown))</text>"
    }

    /// A file's colour: its change's, else a greyish tint of its top-level folder's hue, far from the colours of changes.
    private static func fill(_ change: String?, hue: Double) -> String {
        switch change {
        case "added": "#8ed99a"
        case "removed": "#f19a9a"
        case "contents": "#f2cc60"
        case "moved": "#8cb8f0"
        case "kind": "#c9a7f0"
        case "metadata": "#a6dede"
        default: "hsl(\(Int(hue)),14%,80%)"
        }
    }

    /// The colours of the legend, by change class.
    static let legend: [(String, String)] = [
        ("added", "#8ed99a"), ("removed", "#f19a9a"), ("contents changed", "#f2cc60"), ("moved", "#8cb8f0"),
        ("kind changed", "#c9a7f0"), ("metadata changed", "#a6dede"),
    ]

    /// Boxes for `sizes` (largest first) filling `box`: rows are added to
    /// while that makes their worst aspect ratio no worse.
    private static func squarified(_ sizes: [Double], in box: Box) -> [Box] {
        let total = sizes.reduce(0, +)
        guard total > 0 else { return sizes.map { _ in Box(x: box.x, y: box.y, width: 0, height: 0) } }
        let areas = sizes.map { $0 / total * box.area }
        var result: [Box] = []
        var remaining = box
        var row: [Double] = []
        func worst(_ row: [Double], _ side: Double) -> Double {
            let sum = row.reduce(0, +)
            guard sum > 0, let largest = row.max(), let smallest = row.min(), smallest > 0 else { return .infinity }
            return max(side * side * largest / (sum * sum), sum * sum / (side * side * smallest))
        }
        func place(_ row: [Double]) {
            let sum = row.reduce(0, +)
            if remaining.width >= remaining.height {
                let columnWidth = remaining.height > 0 ? sum / remaining.height : 0
                var y = remaining.y
                for area in row {
                    let height = columnWidth > 0 ? area / columnWidth : 0
                    result.append(Box(x: remaining.x, y: y, width: columnWidth, height: height))
                    y += height
                }
                remaining = Box(x: remaining.x + columnWidth, y: remaining.y, width: max(0, remaining.width - columnWidth), height: remaining.height)
            } else {
                let rowHeight = remaining.width > 0 ? sum / remaining.width : 0
                var x = remaining.x
                for area in row {
                    let width = rowHeight > 0 ? area / rowHeight : 0
                    result.append(Box(x: x, y: remaining.y, width: width, height: rowHeight))
                    x += width
                }
                remaining = Box(x: remaining.x, y: remaining.y + rowHeight, width: remaining.width, height: max(0, remaining.height - rowHeight))
            }
        }
        for area in areas {
            let side = min(remaining.width, remaining.height)
            if row.isEmpty || worst(row + [area], side) <= worst(row, side) {
                row.append(area)
            } else {
                place(row)
                row = [area]
            }
        }
        if !row.isEmpty { place(row) }
        return result
    }

    /// A coordinate with at most one decimal.
    private static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
