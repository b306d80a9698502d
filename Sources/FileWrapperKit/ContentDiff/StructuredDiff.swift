/// What changed between two JSON documents or property lists compared as
/// data: each key or element added, removed or changed, by its path
/// (`/pages/3/title`, a JSON Pointer, RFC 6901). Key order, whitespace and
/// encoding are not changes; two parts that differ only in them are
/// ``isFormattingOnly``.
public struct StructuredDiff: Sendable {
    public struct Change: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            case added, removed, changed
        }

        public var kind: Kind
        /// The path's components: keys' bytes, and array indices as decimal digits.
        public var path: [[UInt8]]
        public var old: StructuredValue?
        public var new: StructuredValue?

        /// The path as a JSON Pointer: `/` before each component, `~` and
        /// `/` in a key written `~0` and `~1`; `/` alone for the top.
        public var pointer: String {
            guard !path.isEmpty else { return "/" }
            return path.map { component in
                "/" + PathDisplay.text(component).replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            }.joined()
        }
    }

    public let syntax: StructuredValue.Syntax
    public let changes: [Change]

    /// Whether the two parts hold the same data written differently.
    public var isFormattingOnly: Bool { changes.isEmpty }

    private init(syntax: StructuredValue.Syntax, changes: [Change]) {
        self.syntax = syntax
        self.changes = changes
    }

    /// The comparison of `old` and `new` when both parse as the same
    /// syntax (``StructuredValue/parse(_:maxNodes:)``); nil when either is
    /// neither JSON nor a property list, or they are one each; a refusal
    /// when either expands past `maxNodes` values, nests too deep or
    /// contains itself.
    ///
    /// - Parameters:
    ///   - old: The part before.
    ///   - new: The part after.
    ///   - maxNodes: How many values each side may expand to.
    /// - Returns: The changes, or the refusal that stopped either side's
    ///   parse; nil when the two are not both JSON or both property lists.
    public static func compare(
        old: [UInt8], new: [UInt8], maxNodes: Int = StructuredValue.defaultMaxNodes
    ) -> Result<StructuredDiff, StructuredValue.Refusal>? {
        let before: (value: StructuredValue, syntax: StructuredValue.Syntax)?, after: (value: StructuredValue, syntax: StructuredValue.Syntax)?
        do throws(StructuredValue.Refusal) {
            before = try StructuredValue.parse(old, maxNodes: maxNodes)
            after = try StructuredValue.parse(new, maxNodes: maxNodes)
        } catch {
            return .failure(error)
        }
        guard let before, let after, before.syntax == after.syntax else { return nil }
        var changes: [Change] = []
        compare(before.value, after.value, at: [], into: &changes)
        return .success(StructuredDiff(syntax: before.syntax, changes: changes))
    }

    private static func compare(_ old: StructuredValue, _ new: StructuredValue, at path: [[UInt8]], into changes: inout [Change]) {
        switch (old, new) {
        case let (.object(a), .object(b)):
            // Both sorted by key bytes: a merge.
            var i = 0, j = 0
            while i < a.count || j < b.count {
                if j == b.count || (i < a.count && a[i].key.lexicographicallyPrecedes(b[j].key)) {
                    changes.append(Change(kind: .removed, path: path + [a[i].key], old: a[i].value, new: nil))
                    i += 1
                } else if i == a.count || b[j].key.lexicographicallyPrecedes(a[i].key) {
                    changes.append(Change(kind: .added, path: path + [b[j].key], old: nil, new: b[j].value))
                    j += 1
                } else {
                    compare(a[i].value, b[j].value, at: path + [a[i].key], into: &changes)
                    i += 1
                    j += 1
                }
            }
        case let (.array(a), .array(b)):
            for index in 0..<max(a.count, b.count) {
                let component = Array(String(index).utf8)
                if index >= b.count {
                    changes.append(Change(kind: .removed, path: path + [component], old: a[index], new: nil))
                } else if index >= a.count {
                    changes.append(Change(kind: .added, path: path + [component], old: nil, new: b[index]))
                } else {
                    compare(a[index], b[index], at: path + [component], into: &changes)
                }
            }
        default:
            if old != new {
                changes.append(Change(kind: .changed, path: path, old: old, new: new))
            }
        }
    }
}
