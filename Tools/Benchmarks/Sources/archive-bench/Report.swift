/// A table of results: its first `leading` columns are labels, the rest
/// figures, aligned right.
struct Table {
    let columns: [String]
    let leading: Int
    var rows: [[String]] = []

    init(columns: [String], leading: Int) {
        self.columns = columns
        self.leading = leading
    }

    /// Columns padded to one width and separated by `|`.
    var text: [String] {
        let cells = [columns] + rows
        let widths = columns.indices.map { column in cells.map { $0[column].count }.max()! }
        func line(_ row: [String]) -> String {
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return column < leading ? row[column] + padding : padding + row[column]
            }.joined(separator: " | ")
        }
        return [line(columns), widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-")] + rows.map(line)
    }

    var markdown: [String] {
        let alignment = columns.indices.map { $0 < leading ? "---" : "---:" }
        return [columns, alignment].map { "| " + $0.joined(separator: " | ") + " |" }
            + rows.map { "| " + $0.joined(separator: " | ") + " |" }
    }
}

/// The results of a run: the command, facts about the run, the tables, and notes.
struct Report {
    var command = ""
    var facts: [(label: String, value: String)] = []
    var tables: [Table] = []
    var notes: [String] = []

    /// Aligned plain text.
    var text: String {
        var lines = ["command: " + command]
        lines += facts.map { "\($0.label): \($0.value)" }
        for table in tables {
            lines.append("")
            lines += table.text
        }
        lines.append("")
        lines += notes.map { "- " + $0 }
        return lines.joined(separator: "\n")
    }

    /// The same as Markdown: the command as a code block, facts as a list,
    /// the tables, notes as a list.
    var markdown: String {
        var lines = ["```sh", command, "```", ""]
        lines += facts.map { "- \($0.label): \($0.value)" }
        for table in tables {
            lines.append("")
            lines += table.markdown
        }
        lines.append("")
        lines += notes.map { "- " + $0 }
        return lines.joined(separator: "\n")
    }
}
