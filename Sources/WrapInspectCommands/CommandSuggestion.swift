/// "Did you mean": the subcommand nearest a mistyped one, as git suggests.
enum CommandSuggestion {
    /// The message for `typed`, which names no subcommand of `names`: the
    /// nearest within two edits (a letter added, dropped, changed or two
    /// swapped), else the list of commands.
    static func message(for typed: String, among names: [String]) -> String {
        let scored = names.map { (name: $0, distance: distance(Array(typed.utf8), Array($0.utf8))) }
        if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= 2 {
            return "'\(Format.name(typed.utf8))' is not a wrapinspect command; did you mean '\(best.name)'?"
        }
        return "'\(Format.name(typed.utf8))' is not a wrapinspect command; the commands are \(names.joined(separator: ", "))."
    }

    /// The optimal string alignment distance between `a` and `b`: the
    /// fewest insertions, deletions, substitutions and swaps of neighbours.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
