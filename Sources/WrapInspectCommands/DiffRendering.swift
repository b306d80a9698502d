import FileWrapperKit
import Foundation
import Glibc

/// A ``ManifestDiff`` as `wrapinspect diff` prints it: one line per change
/// and a summary for people, or one JSON object for programs.
///
/// Text lines are `MARKER PATH (facts): metadata`, where the marker is
/// `+` added, `-` removed, `M` contents changed, `T` kind changed,
/// `m` metadata changed and `R` moved (renamed); directories end in `/`,
/// paths are escaped as ``ManifestEntry/displayPath`` escapes them, times
/// are UTC.
struct DiffRendering {
    let diff: ManifestDiff

    // MARK: Text

    /// The lines for people, the summary last; none when nothing changed.
    /// With `colored`, each marker is coloured as `git diff` colours lines.
    func textLines(colored: Bool) -> [String] {
        guard !diff.isEmpty else { return [] }
        var lines = diff.changes.map { change in
            let marker = Self.marker(change.kind)
            return (colored ? marker.color.wrap(marker.symbol) : marker.symbol) + " " + Self.text(change)
        }
        lines.append(colored ? ANSIColor.bold.wrap(summary) : summary)
        return lines
    }

    /// The patches of a diff's changes, handed to the function given in
    /// the order of the changes, each with its change's index:
    /// ``DiffPatches/forEach(_:)``, made as they are asked for, or a
    /// nested archive's, made before.
    typealias Patches = ((Int, DiffPatches.Patch) throws -> Void) throws -> Void

    /// ``textLines(colored:)`` as bytes to `output`, one call a line, each
    /// change's patch under its line as `patches` hands it on.
    func write(colored: Bool, settings: DiffPatches.Settings, patches: Patches?, to output: ([UInt8]) throws -> Void) throws {
        let lines = textLines(colored: colored)
        var written = 0
        func write(upTo end: Int) throws {
            while written < end {
                try output(Array(lines[written].utf8))
                written += 1
            }
        }
        try patches? { index, patch in
            try write(upTo: index + 1)
            for line in try DiffPatches.lines(of: patch, for: diff.changes[index], settings: settings, colored: colored) { try output(line) }
        }
        try write(upTo: lines.count)
    }

    private static func marker(_ kind: ManifestDiff.Change.Kind) -> (symbol: String, color: ANSIColor) {
        switch kind {
        case .added: ("+", .green)
        case .removed: ("-", .red)
        case .contents: ("M", .yellow)
        case .kind: ("T", .magenta)
        case .metadata: ("m", .cyan)
        case .moved: ("R", .blue)
        }
    }

    /// A change's line after the marker.
    private static func text(_ change: ManifestDiff.Change) -> String {
        let details = change.fields.map { field(field: $0, of: change) }.joined(separator: ", ")
        let head: String
        switch change.kind {
        case .added, .removed:
            head = "\(path(change.entry))\(facts(of: change).map { " (\($0))" } ?? "")"
        case .contents:
            let before = change.old!, after = change.new!
            head = after.contentKind == .symlink
                ? "\(path(after)) (target \(name(before.linkTarget)) -> \(name(after.linkTarget)))"
                : "\(path(after)) (\(Format.size(before.size ?? 0)) -> \(Format.size(after.size ?? 0)))"
        case .kind:
            let before = change.old!, after = change.new!
            head = "\(name(after.path)): \(kindFacts(before, entriesBelow: change.entriesBelow)) -> \(kindFacts(after, entriesBelow: change.entriesBelow))"
        case .metadata:
            head = path(change.entry)
        case .moved:
            let below = change.entriesBelow > 0 ? " (directory, \(entryCount(change.entriesBelow)))" : ""
            let similar = change.movedWithChanges
                ? " (\(change.similarity ?? 0)% similar, \(Format.size(change.old!.size ?? 0)) -> \(Format.size(change.new!.size ?? 0)))" : ""
            head = "\(path(change.old!)) -> \(path(change.new!))\(below)\(similar)"
        }
        return details.isEmpty ? head : "\(head): \(details)"
    }

    /// The path for people, with `/` after a directory (`.` for the root).
    private static func path(_ entry: ManifestEntry) -> String {
        entry.kind == .directory && !entry.path.isEmpty ? entry.displayPath + "/" : entry.displayPath
    }

    private static func name(_ bytes: [UInt8]?) -> String {
        bytes.map { $0.isEmpty ? "." : Format.name($0) } ?? "?"
    }

    /// What an added or removed entry is: a file's size, a link's target, a
    /// directory's entry count, those that moved in or out told apart.
    private static func facts(of change: ManifestDiff.Change) -> String? {
        let entry = change.entry
        switch entry.kind {
        case .file: return entry.size.map(Format.size)
        case .hardLink: return "hard link to \(name(entry.linkTarget))"
        case .symlink: return "symlink -> \(name(entry.linkTarget))"
        case .other: return "device, FIFO or socket"
        case .directory:
            let (staying, moved) = (change.entriesBelow, change.entriesMovedBelow)
            guard moved > 0 else { return staying == 0 ? "empty directory" : "directory, \(entryCount(staying))" }
            let direction = change.kind == .added ? "in" : "out"
            return staying == 0
                ? "directory, \(entryCount(moved)) moved \(direction)"
                : "directory, \(entryCount(staying + moved)), \(moved) moved \(direction)"
        }
    }

    /// An entry's kind, and what it holds, for a kind change.
    private static func kindFacts(_ entry: ManifestEntry, entriesBelow: Int) -> String {
        switch entry.kind {
        case .file, .hardLink: "\(entry.kind.rawValue) (\(Format.size(entry.size ?? 0)))"
        case .symlink: "symlink (-> \(name(entry.linkTarget)))"
        case .directory: "directory (\(entryCount(entriesBelow)))"
        case .other: "other"
        }
    }

    private static func entryCount(_ count: Int) -> String {
        Format.count(Int64(count), "entry", "entries")
    }

    /// `mode 0644 -> 0755`, `mtime 2026-05-01 10:00:00 -> ...`, `owner 501:20 -> 0:0`,
    /// `xattrs +user.a -user.b ~user.c`.
    private static func field(field: ManifestDiff.Field, of change: ManifestDiff.Change) -> String {
        let before = change.old!, after = change.new!
        switch field {
        case .mode:
            return "mode \(ManifestFileSyntax.modeText(before.permissions!)) -> \(ManifestFileSyntax.modeText(after.permissions!))"
        case .mtime:
            return "mtime \(time(before.modified!)) -> \(time(after.modified!))"
        case .owner:
            return "owner \(owner(before.owner!)) -> \(owner(after.owner!))"
        case .xattrs:
            let names = change.extendedAttributeChanges
            let parts = names.added.map { Array("+".utf8) + $0.bytes } + names.removed.map { Array("-".utf8) + $0.bytes }
                + names.changed.map { Array("~".utf8) + $0.bytes }
            return "xattrs " + parts.map { Format.name($0) }.joined(separator: " ")
        }
    }

    /// `7 changes: 1 added, 1 removed, ...`, with what was ignored and how
    /// finely times were compared when coarser than a nanosecond.
    var summary: String {
        let counts = ManifestDiff.Change.Kind.allCases.compactMap { kind -> String? in
            let count = diff.changes.count { $0.kind == kind }
            return count == 0 ? nil : "\(count) \(Self.summaryNoun(kind))"
        }
        var text = "\(Format.count(Int64(diff.changes.count), "change", "changes")): \(counts.joined(separator: ", "))"
        var notes: [String] = []
        if !diff.ignoredFields.isEmpty {
            notes.append("ignoring " + ManifestDiff.Field.allCases.filter(diff.ignoredFields.contains).map(\.rawValue).joined(separator: ", "))
        }
        if diff.timeResolution >= 1_000_000_000 {
            notes.append("times compared to \(diff.timeResolution / 1_000_000_000) s")
        } else if diff.timeResolution > 1 {
            notes.append("times compared to \(diff.timeResolution) ns")
        }
        if !notes.isEmpty {
            text += " (\(notes.joined(separator: "; ")))"
        }
        return text
    }

    private static func summaryNoun(_ kind: ManifestDiff.Change.Kind) -> String {
        switch kind {
        case .added: "added"
        case .removed: "removed"
        case .contents: "contents changed"
        case .kind: "kind changed"
        case .metadata: "metadata changed"
        case .moved: "moved"
        }
    }

    // MARK: JSON

    /// The diff as one JSON object to `output`, in pieces, keys in a fixed
    /// order: `{"version":2,"old":{..},"new":{..},"ignored":[..],
    /// "timeResolution":ns,"changes":[..],"summary":{..}}`. Each change
    /// has `change` (added, removed, contents, kind, metadata, moved) and
    /// `path`; paths that are not UTF-8 are escaped in `path` and kept
    /// exactly in `pathBase64`. Each change that `patches` hands on a patch
    /// for carries it as `patch`, written as it comes.
    func writeJSON(settings: DiffPatches.Settings, patches: Patches?, to output: (String) throws -> Void) throws {
        let summary: [(String, JSONValue)] = ManifestDiff.Change.Kind.allCases.map { kind in
            (kind.rawValue, .number(Int64(diff.changes.count { $0.kind == kind })))
        } + [("total", .number(Int64(diff.changes.count)))]
        let head = JSONValue.object([
            ("version", .number(2)),
            ("old", Self.json(diff.oldSource)),
            ("new", Self.json(diff.newSource)),
            ("ignored", .array(ManifestDiff.Field.allCases.filter(diff.ignoredFields.contains).map { .string($0.rawValue) })),
            ("timeResolution", .number(diff.timeResolution)),
        ]).serialized
        // The head's members, then the changes one at a time, then the summary.
        try output(head.dropLast() + ",\"changes\":[")
        var written = 0
        func write(upTo end: Int, patch: DiffPatches.Patch?) throws {
            while written < end {
                let change = Self.json(diff.changes[written], patch: written == end - 1 ? patch : nil, settings: settings)
                try output((written > 0 ? "," : "") + change.serialized)
                written += 1
            }
        }
        try patches? { index, patch in try write(upTo: index + 1, patch: patch) }
        try write(upTo: diff.changes.count, patch: nil)
        try output("],\"summary\":" + JSONValue.object(summary).serialized + "}")
    }

    /// The changes, each with its patch (`patch`) when `patches` has one.
    func changesJSON(settings: DiffPatches.Settings, patches: [Int: DiffPatches.Patch]) -> JSONValue {
        .array(diff.changes.indices.map { Self.json(diff.changes[$0], patch: patches[$0], settings: settings) })
    }

    /// A change, with its patch as `patch` when it has one.
    private static func json(_ change: ManifestDiff.Change, patch: DiffPatches.Patch?, settings: DiffPatches.Settings) -> JSONValue {
        let object = json(change)
        guard case .object(let members) = object, let patch else { return object }
        return .object(members + [("patch", DiffPatches.json(of: patch, settings: settings))])
    }

    private static func json(_ source: Manifest.Source) -> JSONValue {
        var members: [(String, JSONValue)] = [("kind", .string(source.kind.rawValue)), ("name", .string(source.name))]
        if let format = source.format {
            members.append(("format", .string(format)))
        }
        return .object(members)
    }

    private static func json(_ change: ManifestDiff.Change) -> JSONValue {
        var members: [(String, JSONValue)] = [("change", .string(change.kind.rawValue))]
        members += pathMembers("path", change.path)
        switch change.kind {
        case .added, .removed:
            members += entryMembers(change.entry, entriesBelow: change.entriesBelow)
            if change.entriesMovedBelow > 0 { members.append(("entriesMoved", .number(Int64(change.entriesMovedBelow)))) }
        case .contents, .kind:
            members.append(("old", .object(entryMembers(change.old!, entriesBelow: change.old!.kind == .directory ? change.entriesBelow : 0))))
            members.append(("new", .object(entryMembers(change.new!, entriesBelow: change.new!.kind == .directory ? change.entriesBelow : 0))))
        case .metadata:
            members.append(("kind", .string(change.entry.kind.rawValue)))
        case .moved:
            members += pathMembers("to", change.new!.path)
            members += entryMembers(change.new!, entriesBelow: change.entriesBelow)
            members.append(("similarity", .number(Int64(change.similarity ?? 100))))
            if change.movedWithChanges {
                members.append(("old", .object(entryMembers(change.old!, entriesBelow: 0))))
            }
        }
        if !change.fields.isEmpty {
            members.append(("fields", .object(change.fields.map { ($0.rawValue, fieldJSON($0, of: change)) })))
        }
        return .object(members)
    }

    /// `key` with the path as text, and `keyBase64` with its bytes when they are not UTF-8.
    private static func pathMembers(_ key: String, _ path: [UInt8]) -> [(String, JSONValue)] {
        if let text = String(validating: path, as: UTF8.self) {
            return [(key, .string(text))]
        }
        return [(key, .string(Format.name(path))), (key + "Base64", .string(Data(path).base64EncodedString()))]
    }

    /// An entry's kind and what identifies its contents.
    private static func entryMembers(_ entry: ManifestEntry, entriesBelow: Int) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("kind", .string(entry.kind.rawValue))]
        switch entry.contentKind {
        case .file:
            if let size = entry.size { members.append(("size", .number(size))) }
            if let digest = entry.contentDigest { members.append(("sha256", .string(digest.hex))) }
        case .symlink:
            members += pathMembers("target", entry.linkTarget ?? [])
        case .directory:
            members.append(("entries", .number(Int64(entriesBelow))))
        case .hardLink, .other:
            break
        }
        return members
    }

    private static func fieldJSON(_ field: ManifestDiff.Field, of change: ManifestDiff.Change) -> JSONValue {
        let before = change.old!, after = change.new!
        func pair(_ old: JSONValue, _ new: JSONValue) -> JSONValue { .object([("old", old), ("new", new)]) }
        switch field {
        case .mode:
            return pair(.string(ManifestFileSyntax.modeText(before.permissions!)), .string(ManifestFileSyntax.modeText(after.permissions!)))
        case .mtime:
            return pair(.string(ManifestFileSyntax.text(before.modified!)), .string(ManifestFileSyntax.text(after.modified!)))
        case .owner:
            func owner(_ owner: FileOwner) -> JSONValue {
                .object([("uid", .number(Int64(owner.userID))), ("gid", .number(Int64(owner.groupID)))])
            }
            return pair(owner(before.owner!), owner(after.owner!))
        case .xattrs:
            let names = change.extendedAttributeChanges
            return .object([
                ("added", .array(names.added.map { .string($0.description) })),
                ("removed", .array(names.removed.map { .string($0.description) })),
                ("changed", .array(names.changed.map { .string($0.description) })),
            ])
        }
    }

    // MARK: Values

    private static func owner(_ owner: FileOwner) -> String {
        "\(owner.userID):\(owner.groupID)"
    }

    /// `time` in UTC for people: `2026-05-01 10:00:00`, with `.123456789`
    /// when it has a fraction of a second.
    private static func time(_ time: FileTimestamp) -> String {
        var seconds = time_t(time.seconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2)) "
            + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2))"
        if time.nanoseconds != 0 {
            text += "." + padded(time.nanoseconds, 9)
        }
        return text
    }

    /// `value` in decimal with leading zeros to `width` digits.
    private static func padded(_ value: Int32, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
