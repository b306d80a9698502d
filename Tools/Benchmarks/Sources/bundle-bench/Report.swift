import Foundation

/// One line of results: what was measured, our figure, the peer's, and
/// ours divided by the peer's.
struct Row {
    let operation: String
    let ours: String
    let peer: String
    let ratio: String

    /// Two median times, in seconds to three decimals.
    static func seconds(_ operation: String, ours: Double, peer: Double) -> Row {
        Row(operation: operation, ours: String(format: "%.3f s", ours), peer: String(format: "%.3f s", peer), ratio: ratio(ours, peer))
    }

    /// Two sizes in bytes, shown in MiB.
    static func mebibytes(_ operation: String, ours: Int, peer: Int) -> Row {
        Row(operation: operation, ours: mebibytes(ours), peer: mebibytes(peer), ratio: ratio(Double(ours), Double(peer)))
    }

    static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    /// Two decimals, or two significant digits below 0.1.
    private static func ratio(_ ours: Double, _ peer: Double) -> String {
        let ratio = ours / peer
        return String(format: ratio < 0.1 ? "%.2g" : "%.2f", ratio)
    }
}

/// The results of a run: the command, facts about the run, the table, and notes.
struct Report {
    var command = ""
    var facts: [(label: String, value: String)] = []
    var rows: [Row] = []
    var notes: [String] = []

    static let columns = ["operation", "ours", "peer", "ratio"]

    /// Aligned plain text.
    var text: String {
        var lines = ["command: " + command]
        lines += facts.map { "\($0.label): \($0.value)" }
        let cells = [Self.columns] + rows.map { [$0.operation, $0.ours, $0.peer, $0.ratio] }
        let widths = Self.columns.indices.map { column in cells.map { $0[column].count }.max()! }
        func line(_ row: [String]) -> String {
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return column == 0 ? row[column] + padding : padding + row[column]
            }.joined(separator: " | ")
        }
        lines.append("")
        lines.append(line(cells[0]))
        lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-"))
        lines += cells.dropFirst().map(line)
        lines.append("")
        lines += notes.map { "- " + $0 }
        return lines.joined(separator: "\n")
    }

    /// The same as Markdown: the command as a code block, facts as a list,
    /// the table, notes as a list.
    var markdown: String {
        var lines = ["```sh", command, "```", ""]
        lines += facts.map { "- \($0.label): \($0.value)" }
        lines.append("")
        lines.append("| " + Self.columns.joined(separator: " | ") + " |")
        lines.append("|---|---:|---:|---:|")
        lines += rows.map { "| \($0.operation) | \($0.ours) | \($0.peer) | \($0.ratio) |" }
        lines.append("")
        lines += notes.map { "- " + $0 }
        return lines.joined(separator: "\n")
    }
}
