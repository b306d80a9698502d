import FileWrapperArchive
import FileWrapperKit
import Foundation

/// What changed inside each changed file, for `diff --patch`: a unified
/// diff for text, the first differing bytes otherwise, and, for a member
/// that is itself an archive on both sides, the diff of its two trees with
/// their own patches (within a ``NestedArchiveBudget``). Only files whose
/// contents changed are read, at most `maxBytes` of each, a batch of
/// files at a time (``batchBytes`` a side; an archive in two passes a
/// batch), so that memory stays bounded however many files changed:
/// ``forEach(_:)`` makes each patch, hands it on and drops it.
struct DiffPatches {
    /// What a change's patch shows.
    indirect enum Patch {
        /// Both sides are text within the limit.
        case text(LineDiff)
        /// Both sides are JSON or both property lists, compared as data (`--structured`).
        case structured(StructuredDiff)
        /// Both sides are archives: the diff of their trees and its patches, by change index.
        case archive(ManifestDiff, [Int: Patch])
        /// Not text, or over the limit on a side: where the bytes read first
        /// differ (nil when the bytes read agree: the difference lies past
        /// the limit).
        case binary(ByteDifference?, overLimit: Bool)
        /// A side is a manifest, which holds digests, not bytes.
        case unavailable(String)
        /// Not compared as data or as trees, for `reason`, past a limit that
        /// `flag` raises (nil when none does); `instead` is the patch made
        /// of the bytes.
        case skipped(reason: String, flag: String?, instead: Patch)
    }

    /// Where a side's files are read from.
    enum Source {
        /// What the user named: a bundle, an archive, a file or a manifest.
        case path(String)
        /// A member that is an archive, in memory; `name` stands for it in errors.
        case archive(Data, name: String)
    }

    /// How patches are made, the same at every level of nesting.
    struct Settings {
        var context: Int
        var maxBytes: Int
        /// Whether JSON and property-list parts are compared as data.
        var structured: Bool
        /// The values a JSON or property-list part may expand to (`--max-structured-nodes`).
        var maxStructuredNodes: Int
        /// The metadata fields a nested archive's diff leaves out, as the outer one does.
        var ignoring: Set<ManifestDiff.Field>
        var options: ManifestReadOptions
        /// How alike, in percent, a removed and an added file must be to
        /// show as a move; 100 for exact moves only (`--find-renames`).
        var minimumSimilarity: Int
        /// Beyond this many removed × this many added files, moves of changed files are not looked for.
        var renameLimit: Int
        /// What nested archives may cost, together (`--max-nested-depth`, `-bytes`, `-entries`).
        var nested: NestedArchiveBudget.Limits
    }

    /// The bytes of contents of one side held at a time: a batch of files
    /// is read, its patches made and handed on before the next is read.
    static let batchBytes = 16 << 20

    let diff: ManifestDiff
    let old: Source
    let new: Source
    let settings: Settings
    /// Shared by every level of nesting of one comparison.
    private let budget: NestedArchiveBudget
    /// The archives around `old` and `new`.
    private let depth: Int

    /// The patches of `diff`'s changed files, read from `old` and `new`
    /// (what the manifests were read from) when ``forEach(_:)`` asks.
    init(of diff: ManifestDiff, old: Source, new: Source, settings: Settings) {
        self.init(of: diff, old: old, new: new, settings: settings, budget: NestedArchiveBudget(settings.nested), depth: 0)
    }

    private init(of diff: ManifestDiff, old: Source, new: Source, settings: Settings, budget: NestedArchiveBudget, depth: Int) {
        self.diff = diff
        self.old = old
        self.new = new
        self.settings = settings
        self.budget = budget
        self.depth = depth
    }

    /// Makes the patch of each changed file, in the order of the changes,
    /// and calls `body` with its change's index and the patch, a batch of
    /// files read at a time.
    func forEach(_ body: (Int, Patch) throws -> Void) throws {
        let indices = diff.changes.indices.filter { index in
            let change = diff.changes[index]
            return (change.kind == .contents && change.old?.contentKind == .file && change.new?.contentKind == .file)
                || change.movedWithChanges
        }
        var start = indices.startIndex
        while start < indices.endIndex {
            // At least one file, then as many as fit in the batch on both sides.
            var end = start, oldBytes = 0, newBytes = 0
            repeat {
                let change = diff.changes[indices[end]]
                oldBytes += min(Int(clamping: change.old?.size ?? 0), settings.maxBytes)
                newBytes += min(Int(clamping: change.new?.size ?? 0), settings.maxBytes)
                end += 1
            } while end < indices.endIndex && max(oldBytes, newBytes) < Self.batchBytes
            let batch = Array(indices[start..<end])
            try patches(of: batch, body)
            start = end
        }
    }

    /// The patches of the changes at `batch`, handed to `body`.
    private func patches(of batch: [Int], _ body: (Int, Patch) throws -> Void) throws {
        let oldSide = try contents(of: batch.map { diff.changes[$0].old!.path }, in: old)
        // When the old side holds no contents, the new side's are not read for nothing.
        let newSide = if case .failure(let reason) = oldSide {
            Result<[[UInt8]], Unavailable>.failure(reason)
        } else {
            try contents(of: batch.map { diff.changes[$0].new!.path }, in: new)
        }
        for (position, index) in batch.enumerated() {
            switch (oldSide, newSide) {
            case (.failure(let reason), _), (_, .failure(let reason)):
                try body(index, .unavailable(reason.message))
            case (.success(let before), .success(let after)):
                try body(index, try patch(of: diff.changes[index], before[position], after[position]))
            }
        }
    }

    /// The patch of `change`, whose sides' first bytes are `a` and `b`.
    private func patch(of change: ManifestDiff.Change, _ a: [UInt8], _ b: [UInt8]) throws -> Patch {
        let overLimit = (change.old?.size ?? 0) > settings.maxBytes || (change.new?.size ?? 0) > settings.maxBytes
        if overLimit {
            return .binary(ByteDifference(old: a, new: b), overLimit: true)
        }
        var refusal: StructuredValue.Refusal?
        if settings.structured, let compared = StructuredDiff.compare(old: a, new: b, maxNodes: settings.maxStructuredNodes) {
            switch compared {
            case .success(let structuredDiff): return .structured(structuredDiff)
            case .failure(let refused): refusal = refused
            }
        }
        let bytes: Patch
        if ByteDifference.isText(a), ByteDifference.isText(b) {
            bytes = .text(LineDiff(old: a, new: b))
        } else if let nested = try archives(a, b, at: change.new!.path) {
            return nested
        } else {
            bytes = .binary(ByteDifference(old: a, new: b), overLimit: false)
        }
        guard let refusal else { return bytes }
        let flag: String? = if case .tooManyNodes = refusal.reason { "--max-structured-nodes" } else { nil }
        return .skipped(reason: refusal.description, flag: flag, instead: bytes)
    }

    /// `old` and `new` compared as trees when both read as archives (in the
    /// formats and limits of the outer ones, within what is left of the
    /// budget), every patch made; nil when either does not read as one.
    /// Skipped, with the first differing bytes, past the budget.
    private func archives(_ old: [UInt8], _ new: [UInt8], at path: [UInt8]) throws -> Patch? {
        let name = self.new.name + "/" + PathDisplay.text(path)
        let outer = settings.options.limits
        let skipped = { (exceeded: NestedArchiveBudget.Exceeded) in
            Patch.skipped(reason: exceeded.reason, flag: exceeded.flag, instead: .binary(ByteDifference(old: old, new: new), overLimit: false))
        }
        /// The manifest of `bytes`, nil when it is no archive; throws the budget's reason past it.
        func manifest(_ bytes: [UInt8]) throws -> (Data, Manifest)? {
            guard let limits = budget.readingLimits(outer) else { throw budget.spent! }
            let data = Data(bytes)
            do {
                let manifest = try Manifest(archiveData: data, name: name, formats: settings.options.archiveFormats, limits: limits)
                try budget.spend(bytes: manifest.entries.reduce(0) { $0 + Int(clamping: $1.size ?? 0) }, entries: manifest.entries.count { !$0.path.isEmpty })
                return (data, manifest)
            } catch let exceeded as NestedArchiveBudget.Exceeded {
                throw exceeded
            } catch {
                if let exceeded = budget.exceeded(by: error, lowered: limits, outer: outer) { throw exceeded }
                return nil
            }
        }
        if let deep = budget.refusal(atDepth: depth) {
            return isArchive(old, name: name) && isArchive(new, name: name) ? skipped(deep) : nil
        }
        do {
            guard let (oldData, oldManifest) = try manifest(old), let (newData, newManifest) = try manifest(new),
                  // Zeros read as an empty tar: two trees of nothing are compared as bytes.
                  !(Self.holdsNothing(oldManifest) && Self.holdsNothing(newManifest)) else { return nil }
            let (oldSource, newSource) = (Source.archive(oldData, name: name), Source.archive(newData, name: name))
            let diff = try Self.diff(from: oldManifest, to: newManifest, old: oldSource, new: newSource, settings: settings, budget: budget)
            var patches: [Int: Patch] = [:]
            try DiffPatches(of: diff, old: oldSource, new: newSource, settings: settings, budget: budget, depth: depth + 1).forEach { patches[$0] = $1 }
            return .archive(diff, patches)
        } catch let exceeded as NestedArchiveBudget.Exceeded {
            return skipped(exceeded)
        }
    }

    /// Whether `manifest` lists no entry but its root.
    private static func holdsNothing(_ manifest: Manifest) -> Bool {
        manifest.entries.allSatisfy { $0.path.isEmpty }
    }

    /// Whether `bytes` read as an archive that holds something, found from
    /// its first entry alone.
    private func isArchive(_ bytes: [UInt8], name: String) -> Bool {
        var probe = settings.options.limits
        (probe.maxEntries, probe.maxBytes) = (1, 1)
        do {
            let manifest = try Manifest(archiveData: Data(bytes), name: name, formats: settings.options.archiveFormats, limits: probe,
                                        hashingContents: false)
            return !Self.holdsNothing(manifest)
        } catch let error as ArchiveError {
            return error.code == .limitExceeded
        } catch {
            return false
        }
    }

    /// The diff of two manifests read from `old` and `new`, with moves of
    /// files that also changed unless `settings` asks for exact moves only;
    /// what is read of a nested archive is charged to `budget`.
    static func diff(
        from oldManifest: Manifest, to newManifest: Manifest, old: Source, new: Source, settings: Settings, budget: NestedArchiveBudget? = nil
    ) throws -> ManifestDiff {
        guard settings.minimumSimilarity < 100 else {
            return try ManifestDiff(from: oldManifest, to: newManifest, ignoring: settings.ignoring)
        }
        return try ManifestDiff(from: oldManifest, to: newManifest, ignoring: settings.ignoring, minimumPercent: settings.minimumSimilarity,
                                limit: settings.renameLimit) { entries, side in
            // Files over maxBytes are not read.
            let read = entries.indices.filter { (entries[$0].size ?? 0) <= settings.maxBytes }
            var builders = Array(repeating: ContentSignature.Builder(), count: read.count)
            let source = side == .old ? old : new
            guard try forEachBlock(ofMembers: read.map { entries[$0].path }, in: source, settings: settings, budget: budget, {
                builders[$0].append($1)
            }) else {
                return Array(repeating: nil, count: entries.count)
            }
            var signatures = [ContentSignature?](repeating: nil, count: entries.count)
            for (position, index) in read.enumerated() {
                signatures[index] = builders[position].finish()
            }
            return signatures
        }
    }

    /// Calls `body` with each block of each of `members` in `source` and
    /// the member's index; false, reading nothing, when `source` is a
    /// manifest, which holds no contents. Every block of a nested archive
    /// is charged to `budget`, which stops the read once spent.
    private static func forEachBlock(
        ofMembers members: [[UInt8]], in source: Source, settings: Settings, budget: NestedArchiveBudget?,
        _ body: (Int, UnsafeRawBufferPointer) -> Void
    ) throws -> Bool {
        switch source {
        case .path(let path):
            let url = try StandardInput.url(for: path, limits: settings.options.limits)
            if case .manifest = try Manifest.inputKind(of: url, options: settings.options) { return false }
            if !members.isEmpty {
                try MemberContents.forEachBlock(ofMembers: members, in: url, options: settings.options) { body($0, $1) }
            }
        case .archive(let data, let name):
            if !members.isEmpty {
                try MemberContents.forEachBlock(ofMembers: members, inArchiveData: data, name: name, options: settings.options) { index, block in
                    try budget?.spend(bytes: block.count)
                    body(index, block)
                }
            }
        }
        return true
    }

    /// Why a side's contents cannot be shown.
    struct Unavailable: Error {
        var message: String
    }

    /// The first `maxBytes` bytes of each of `members` in `source`; a
    /// failure (not an error) for a manifest file.
    private func contents(of members: [[UInt8]], in source: Source) throws -> Result<[[UInt8]], Unavailable> {
        var contents = Array(repeating: [UInt8](), count: members.count)
        let maxBytes = settings.maxBytes
        guard try Self.forEachBlock(ofMembers: members, in: source, settings: settings, budget: budget, { index, block in
            let room = maxBytes - contents[index].count
            if room > 0 { contents[index] += block.prefix(room) }
        }) else {
            return .failure(Unavailable(message: "\(source.name) is a manifest, which holds digests, not contents"))
        }
        return .success(contents)
    }

    // MARK: Text

    /// `patch`, of `change`, as lines of bytes, coloured as `git diff`
    /// colours them when `colored`. Text patches carry `--- a/PATH` and
    /// `+++ b/PATH` headers, so that `patch -p1` applies the output.
    static func lines(of patch: Patch, for change: ManifestDiff.Change, settings: Settings, colored: Bool) throws -> [[UInt8]] {
        func paint(_ color: ANSIColor, _ line: [UInt8]) -> [UInt8] {
            colored ? Self.painted(color, line) : line
        }
        switch patch {
        case .text(let lineDiff):
            // A tab ends a name with a space in it, for patch(1), as git writes it.
            func header(_ prefix: String, _ path: [UInt8]) -> [UInt8] {
                paint(.bold, Array(prefix.utf8) + path + (path.contains(UInt8(ascii: " ")) ? [UInt8(ascii: "\t")] : []))
            }
            var lines = [header("--- a/", change.old!.path), header("+++ b/", change.new!.path)]
            for hunk in lineDiff.hunks(context: settings.context) {
                for line in hunk.printedLines {
                    switch line.first {
                    case UInt8(ascii: "@"): lines.append(paint(.cyan, line))
                    case UInt8(ascii: "-"): lines.append(paint(.red, line))
                    case UInt8(ascii: "+"): lines.append(paint(.green, line))
                    default: lines.append(line)
                    }
                }
            }
            return lines
        case .structured(let structuredDiff):
            let syntax = structuredDiff.syntax == .json ? "JSON" : "property list"
            guard !structuredDiff.isFormattingOnly else {
                return [Array("  \(syntax): formatting only, the same data".utf8)]
            }
            return structuredDiff.changes.map { change in
                let line = switch change.kind {
                case .changed: "  \(change.pointer): \(change.old!.summary()) -> \(change.new!.summary())"
                case .added: "  + \(change.pointer): \(change.new!.summary())"
                case .removed: "  - \(change.pointer): \(change.old!.summary())"
                }
                let color: ANSIColor = switch change.kind {
                case .changed: .yellow
                case .added: .green
                case .removed: .red
                }
                return paint(color, Array(line.utf8))
            }
        case .archive(let nested, let nestedPatches):
            guard !nested.isEmpty else { return [Array("  archive: the same tree".utf8)] }
            var lines: [[UInt8]] = []
            try DiffRendering(diff: nested).write(colored: colored, settings: settings, patches: nestedPatches.inOrder) { lines.append(Array("  ".utf8) + $0) }
            return lines
        case .binary(let difference, let overLimit):
            let limit = overLimit ? " (over --max-diff-bytes \(settings.maxBytes): the first \(settings.maxBytes) bytes compared)" : ""
            guard let difference else {
                return [Array("  binary: the first \(settings.maxBytes) bytes agree; the difference lies past them".utf8)]
            }
            let at = "byte \(difference.offset) (0x\(String(difference.offset, radix: 16)))"
            let (before, after) = (Self.hex(difference.oldBytes), Self.hex(difference.newBytes))
            return [Array("  binary\(limit): first difference at \(at): \(before.isEmpty ? "(end)" : before) -> \(after.isEmpty ? "(end)" : after)".utf8)]
        case .unavailable(let reason):
            return [Array("  contents not shown: \(reason)".utf8)]
        case .skipped(let reason, let flag, let instead):
            return [Array("  not compared: \(reason)\(flag.map { ", raise with \($0)" } ?? "")".utf8)]
                + (try lines(of: instead, for: change, settings: settings, colored: colored))
        }
    }

    // MARK: JSON

    /// `patch` for `diff --patch --json`, as docs/cli-json.md describes it.
    static func json(of patch: Patch, settings: Settings) -> JSONValue {
        switch patch {
        case .text(let lineDiff):
            let hunks = lineDiff.hunks(context: settings.context).map { hunk -> JSONValue in
                .object([
                    ("oldStart", .number(Int64(hunk.oldStart))), ("oldCount", .number(Int64(hunk.oldCount))),
                    ("newStart", .number(Int64(hunk.newStart))), ("newCount", .number(Int64(hunk.newCount))),
                    ("lines", .array(hunk.printedLines.dropFirst().map(Self.jsonLine))),
                ])
            }
            return .object([("type", .string("text")), ("hunks", .array(hunks))])
        case .structured(let structuredDiff):
            let changes = structuredDiff.changes.map { change -> JSONValue in
                var members: [(String, JSONValue)] = [("change", .string(change.kind.rawValue)), ("pointer", .string(change.pointer))]
                if let old = change.old { members.append(("old", Self.json(old))) }
                if let new = change.new { members.append(("new", Self.json(new))) }
                return .object(members)
            }
            return .object([("type", .string("structured")), ("syntax", .string(structuredDiff.syntax == .json ? "json" : "plist")),
                            ("changes", .array(changes))])
        case .archive(let nested, let nestedPatches):
            return .object([("type", .string("archive")), ("changes", DiffRendering(diff: nested).changesJSON(settings: settings, patches: nestedPatches))])
        case .binary(let difference, let overLimit):
            var members: [(String, JSONValue)] = [("type", .string("binary")), ("overLimit", .bool(overLimit))]
            if let difference {
                members += [("offset", .number(Int64(difference.offset))),
                            ("old", .string(Self.hex(difference.oldBytes))), ("new", .string(Self.hex(difference.newBytes)))]
            }
            return .object(members)
        case .unavailable(let reason):
            return .object([("type", .string("unavailable")), ("reason", .string(reason))])
        case .skipped(let reason, let flag, let instead):
            guard case .object(let members) = json(of: instead, settings: settings) else { return json(of: instead, settings: settings) }
            var skipped: [(String, JSONValue)] = [("reason", .string(reason))]
            if let flag { skipped.append(("flag", .string(flag))) }
            return .object(members + [("skipped", .object(skipped))])
        }
    }

    /// A printed line of a hunk: a string when it is UTF-8, else `{"base64": ...}`.
    private static func jsonLine(_ line: [UInt8]) -> JSONValue {
        if let text = String(validating: line, as: UTF8.self) { return .string(text) }
        return .object([("base64", .string(Data(line).base64EncodedString()))])
    }

    /// A JSON or property-list value as JSON: a property list's date as an
    /// ISO 8601 string, its data as base64, a number JSON cannot write as
    /// a string.
    private static func json(_ value: StructuredValue) -> JSONValue {
        switch value {
        case .object(let members):
            .object(members.map { (PathDisplay.text($0.key), json($0.value)) })
        case .array(let elements): .array(elements.map(json))
        case .string(let bytes): .string(PathDisplay.text(bytes))
        case .number(let number, let text): number.isFinite ? .numberText(text) : .string(text)
        case .bool(let flag): .bool(flag)
        case .null: .null
        case .date(let date): .string(date.formatted(.iso8601))
        case .data(let data): .string(data.base64EncodedString())
        }
    }

    /// `line` in `color`, its bytes passed through as they are (a line or a
    /// path need not be UTF-8), as `git diff` passes them.
    private static func painted(_ color: ANSIColor, _ line: [UInt8]) -> [UInt8] {
        Array("\u{1B}[\(color.rawValue)m".utf8) + line + Array("\u{1B}[0m".utf8)
    }

    /// `41 42 43`; empty where the side ends.
    private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}

extension [Int: DiffPatches.Patch] {
    /// The patches by change index, in that order, as ``DiffRendering/write(colored:settings:patches:to:)`` takes them.
    func inOrder(_ body: (Int, DiffPatches.Patch) throws -> Void) rethrows {
        for index in keys.sorted() { try body(index, self[index]!) }
    }
}

extension DiffPatches.Source {
    /// The input's name in messages.
    var name: String {
        switch self {
        case .path(let path): path
        case .archive(_, let name): name
        }
    }
}
