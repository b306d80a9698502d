import Foundation

/// A table of results under a title: its first `leading` columns are
/// labels, the rest figures, aligned right.
package struct Table: Codable {
    package let title: String
    package let columns: [String]
    package let leading: Int
    package var rows: [[String]] = []

    package init(_ title: String, columns: [String], leading: Int) {
        self.title = title
        self.columns = columns
        self.leading = leading
    }

    /// The title, then columns padded to one width and separated by `|`.
    var text: [String] {
        let cells = [columns] + rows
        let widths = columns.indices.map { column in cells.map { $0[column].count }.max()! }
        func line(_ row: [String]) -> String {
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return column < leading ? row[column] + padding : padding + row[column]
            }.joined(separator: " | ")
        }
        return [title + ":", line(columns), widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-")] + rows.map(line)
    }

    var markdown: [String] {
        let alignment = columns.indices.map { $0 < leading ? "---" : "---:" }
        return ["### " + title, ""] + [columns, alignment].map { "| " + $0.joined(separator: " | ") + " |" }
            + rows.map { "| " + $0.joined(separator: " | ") + " |" }
    }
}

/// One target of issue 6, as measured: our figure, the best peer's, and
/// whether the limit holds.
package struct TargetResult: Codable {
    package let target: String
    package let workload: String
    package let ours: String
    /// The best peer and its figure, or "–" where the limit is absolute.
    package let peer: String
    package let ratio: String
    package let limit: String
    package let met: Bool

    package init(_ target: String, workload: String, ours: String, peer: String = "–", ratio: String = "–", limit: String, met: Bool) {
        (self.target, self.workload, self.ours, self.peer, self.ratio, self.limit, self.met) = (target, workload, ours, peer, ratio, limit, met)
    }
}

/// A labelled fact about a run: the date, the machine, a workload, ...
package struct Fact: Codable, Equatable {
    package let label: String
    package let value: String
}

/// The results of a run: the command, facts about the run, the targets,
/// the detailed tables, and notes on the method.
package struct Report: Codable {
    package var command = ""
    package var facts: [Fact] = []
    package var targets: [TargetResult] = []
    package var tables: [Table] = []
    package var notes: [String] = []

    package init() {}

    package mutating func fact(_ label: String, _ value: String) {
        facts.append(Fact(label: label, value: value))
    }

    /// Records the date, the machine and the load average, runs `measure`,
    /// and records the load average after it.
    package mutating func recordingRun(_ measure: (inout Report) throws -> Void) rethrows {
        let info = ProcessInfo.processInfo
        fact("date", ISO8601DateFormatter().string(from: Date()))
        fact("machine", "\(info.activeProcessorCount) cores, \(info.physicalMemory >> 30) GiB, \(info.operatingSystemVersionString)")
        fact("load average at start", Self.loadAverage)
        try measure(&self)
        fact("load average at end", Self.loadAverage)
    }

    /// Adds another run's results (bundle-bench's, run as a child): its
    /// facts that this report does not have yet, its targets, tables and notes.
    package mutating func merge(_ other: Report) {
        facts += other.facts.filter { !facts.contains($0) }
        targets += other.targets
        tables += other.tables
        notes += other.notes
    }

    /// The targets as the first table, then the others.
    private var allTables: [Table] {
        guard !targets.isEmpty else { return tables }
        var table = Table("Targets of issues 6 and 20 (ratios of medians, ours ÷ the best peer in this run)",
                          columns: ["target", "workload", "ours", "best peer", "ratio", "limit", "result"], leading: 2)
        table.rows = targets.map { [$0.target, $0.workload, $0.ours, $0.peer, $0.ratio, $0.limit, $0.met ? "met" : "MISSED"] }
        return [table] + tables
    }

    /// Aligned plain text.
    package var text: String {
        rendered(head: ["command: " + command], fact: { "\($0.label): \($0.value)" }, table: \.text)
    }

    /// The same as Markdown: the command as a code block, facts as a list,
    /// the tables under headings.
    package var markdown: String {
        rendered(head: ["```sh", command, "```", ""], fact: { "- \($0.label): \($0.value)" }, table: \.markdown)
    }

    /// `head`, a line per fact, each table after an empty line, and the
    /// notes as a list.
    private func rendered(head: [String], fact: (Fact) -> String, table: (Table) -> [String]) -> String {
        var lines = head + facts.map(fact)
        for each in allTables {
            lines.append("")
            lines += table(each)
        }
        lines.append("")
        lines += notes.map { "- " + $0 }
        return lines.joined(separator: "\n")
    }

    package func printed(as style: ReportStyle) throws -> String {
        switch style {
        case .text: text
        case .markdown: markdown
        case .json: String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
        }
    }

    private static var loadAverage: String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// How a report is printed: JSON is for archive-bench, which runs bundle-bench.
package enum ReportStyle {
    case text, markdown, json
}

/// Figures as the tables show them.
package enum Formatting {
    package static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    package static func mebibytes(_ bytes: Double) -> String {
        String(format: "%.1f", bytes / 1_048_576)
    }

    /// Two decimals, or two significant digits below 0.1.
    package static func ratio(_ value: Double, _ baseline: Double) -> String {
        let ratio = value / baseline
        return String(format: ratio < 0.1 ? "%.2g" : "%.2f", ratio)
    }
}
