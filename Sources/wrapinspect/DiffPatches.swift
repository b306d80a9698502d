import FileWrapperArchive
import FileWrapperKit
import Foundation

/// What changed inside each changed file, for `diff --patch`: a unified
/// diff for text, the first differing bytes otherwise, and, for a member
/// that is itself an archive on both sides, the diff of its two trees with
/// their own patches (to ``Settings/maxDepth`` levels). Only files whose
/// contents changed are read, each side's in one go (an archive in two
/// passes however many files), and at most `maxBytes` of each.
struct DiffPatches {
    /// What a change's patch shows.
    indirect enum Patch {
        /// Both sides are text within the limit.
        case text(LineDiff)
        /// Both sides are JSON or both property lists, compared as data (`--structured`).
        case structured(StructuredDiff)
        /// Both sides are archives: the diff of their trees and its patches.
        case archive(ManifestDiff, DiffPatches)
        /// Not text, or over the limit on a side: where the bytes read first
        /// differ (nil when the bytes read agree: the difference lies past
        /// the limit).
        case binary(ByteDifference?, overLimit: Bool)
        /// A side is a manifest, which holds digests, not bytes.
        case unavailable(String)
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
        /// The metadata fields a nested archive's diff leaves out, as the outer one does.
        var ignoring: Set<ManifestDiff.Field>
        var options: ManifestReadOptions
        /// How alike, in percent, a removed and an added file must be to
        /// show as a move; 100 for exact moves only (`--find-renames`).
        var minimumSimilarity: Int
        /// Beyond this many removed × this many added files, moves of changed files are not looked for.
        var renameLimit: Int
        /// How many archives deep a nested archive is still compared as a tree.
        static let maxDepth = 3
    }

    /// The patch of each contents change, by its index in the diff's changes.
    let patches: [Int: Patch]
    let settings: Settings

    /// Reads the changed files of `diff` from `old` and `new` (what the
    /// manifests were read from); `depth` counts the archives around them.
    init(of diff: ManifestDiff, old: Source, new: Source, settings: Settings, depth: Int = 0) throws {
        self.settings = settings
        let indices = diff.changes.indices.filter { index in
            let change = diff.changes[index]
            return (change.kind == .contents && change.old?.contentKind == .file && change.new?.contentKind == .file)
                || change.movedWithChanges
        }
        guard !indices.isEmpty else {
            patches = [:]
            return
        }
        let oldSide = try Self.contents(of: indices.map { diff.changes[$0].old!.path }, in: old, settings: settings)
        // When the old side holds no contents, the new side's are not read for nothing.
        let newSide = if case .failure(let reason) = oldSide {
            Result<[[UInt8]], Unavailable>.failure(reason)
        } else {
            try Self.contents(of: indices.map { diff.changes[$0].new!.path }, in: new, settings: settings)
        }
        var patches: [Int: Patch] = [:]
        for (position, index) in indices.enumerated() {
            switch (oldSide, newSide) {
            case (.failure(let reason), _), (_, .failure(let reason)):
                patches[index] = .unavailable(reason.message)
            case (.success(let before), .success(let after)):
                let change = diff.changes[index]
                let (a, b) = (before[position], after[position])
                let overLimit = (change.old?.size ?? 0) > settings.maxBytes || (change.new?.size ?? 0) > settings.maxBytes
                if overLimit {
                    patches[index] = .binary(ByteDifference(old: a, new: b), overLimit: true)
                } else if settings.structured, let structuredDiff = StructuredDiff(old: a, new: b) {
                    patches[index] = .structured(structuredDiff)
                } else if ByteDifference.isText(a), ByteDifference.isText(b) {
                    patches[index] = .text(LineDiff(old: a, new: b))
                } else if depth < Settings.maxDepth,
                          let nested = try Self.archives(a, b, at: change.new!.path, in: new, settings: settings, depth: depth) {
                    patches[index] = nested
                } else {
                    patches[index] = .binary(ByteDifference(old: a, new: b), overLimit: false)
                }
            }
        }
        self.patches = patches
    }

    /// `old` and `new` compared as trees when both read as archives (in the
    /// formats and limits of the outer ones); nil when either does not.
    private static func archives(
        _ old: [UInt8], _ new: [UInt8], at path: [UInt8], in source: Source, settings: Settings, depth: Int
    ) throws -> Patch? {
        let name = source.name + "/" + PathDisplay.text(path)
        func manifest(_ bytes: [UInt8]) -> (Data, Manifest)? {
            let data = Data(bytes)
            guard let manifest = try? Manifest(archiveData: data, name: name, formats: settings.options.archiveFormats,
                                               limits: settings.options.limits) else { return nil }
            return (data, manifest)
        }
        guard let (oldData, oldManifest) = manifest(old), let (newData, newManifest) = manifest(new) else { return nil }
        let diff = try diff(from: oldManifest, to: newManifest, old: .archive(oldData, name: name), new: .archive(newData, name: name),
                            settings: settings)
        let patches = try DiffPatches(of: diff, old: .archive(oldData, name: name), new: .archive(newData, name: name),
                                      settings: settings, depth: depth + 1)
        return .archive(diff, patches)
    }

    /// The diff of two manifests read from `old` and `new`, with moves of
    /// files that also changed unless `settings` asks for exact moves only.
    static func diff(from oldManifest: Manifest, to newManifest: Manifest, old: Source, new: Source, settings: Settings) throws -> ManifestDiff {
        guard settings.minimumSimilarity < 100 else {
            return try ManifestDiff(from: oldManifest, to: newManifest, ignoring: settings.ignoring)
        }
        return try ManifestDiff(from: oldManifest, to: newManifest, ignoring: settings.ignoring, minimumPercent: settings.minimumSimilarity,
                                limit: settings.renameLimit) {
            entries, side in try signatures(of: entries, in: side == .old ? old : new, settings: settings)
        }
    }

    /// The contents' signature of each of `entries` (files) in `source`,
    /// read in one pass; nil for a file over `maxBytes` (not read) and for
    /// every file of a manifest, which holds no contents.
    private static func signatures(of entries: [ManifestEntry], in source: Source, settings: Settings) throws -> [ContentSignature?] {
        let read = entries.indices.filter { (entries[$0].size ?? 0) <= settings.maxBytes }
        var builders = Array(repeating: ContentSignature.Builder(), count: read.count)
        let collect = { (index: Int, block: UnsafeRawBufferPointer) in builders[index].append(block) }
        switch source {
        case .path(let path):
            let url = try StandardInput.url(for: path, limits: settings.options.limits)
            if case .manifest = try Manifest.inputKind(of: url, options: settings.options) {
                return Array(repeating: nil, count: entries.count)
            }
            if !read.isEmpty {
                try MemberContents.forEachBlock(ofMembers: read.map { entries[$0].path }, in: url, options: settings.options, collect)
            }
        case .archive(let data, let name):
            if !read.isEmpty {
                try MemberContents.forEachBlock(ofMembers: read.map { entries[$0].path }, inArchiveData: data, name: name,
                                                options: settings.options, collect)
            }
        }
        var signatures = [ContentSignature?](repeating: nil, count: entries.count)
        for (position, index) in read.enumerated() {
            signatures[index] = builders[position].finish()
        }
        return signatures
    }

    /// Why a side's contents cannot be shown.
    struct Unavailable: Error {
        var message: String
    }

    /// The first `maxBytes` bytes of each of `members` in `source`; a
    /// failure (not an error) for a manifest file.
    private static func contents(of members: [[UInt8]], in source: Source, settings: Settings) throws -> Result<[[UInt8]], Unavailable> {
        var contents = Array(repeating: [UInt8](), count: members.count)
        let collect = { (index: Int, block: UnsafeRawBufferPointer) in
            let room = settings.maxBytes - contents[index].count
            if room > 0 { contents[index] += block.prefix(room) }
        }
        switch source {
        case .path(let path):
            let url = try StandardInput.url(for: path, limits: settings.options.limits)
            if case .manifest = try Manifest.inputKind(of: url, options: settings.options) {
                return .failure(Unavailable(message: "\(path) is a manifest, which holds digests, not contents"))
            }
            try MemberContents.forEachBlock(ofMembers: members, in: url, options: settings.options, collect)
        case .archive(let data, let name):
            try MemberContents.forEachBlock(ofMembers: members, inArchiveData: data, name: name, options: settings.options, collect)
        }
        return .success(contents)
    }

    // MARK: Text

    /// The patch of change `index` as lines of bytes, coloured as `git diff`
    /// colours them when `colored`; none for a change without a patch.
    /// Text patches carry `--- a/PATH` and `+++ b/PATH` headers, so that
    /// `patch -p1` applies the output.
    func lines(forChange index: Int, of diff: ManifestDiff, colored: Bool) -> [[UInt8]] {
        guard let patch = patches[index] else { return [] }
        let change = diff.changes[index]
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
            return DiffRendering(diff: nested).lines(colored: colored, patches: nestedPatches).map { Array("  ".utf8) + $0 }
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
        }
    }

    // MARK: JSON

    /// The patch of change `index` for `diff --patch --json`; nil for a
    /// change without one. docs/cli-json.md describes it.
    func json(forChange index: Int) -> JSONValue? {
        guard let patch = patches[index] else { return nil }
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
            return .object([("type", .string("archive")), ("changes", DiffRendering(diff: nested).changesJSON(patches: nestedPatches))])
        case .binary(let difference, let overLimit):
            var members: [(String, JSONValue)] = [("type", .string("binary")), ("overLimit", .bool(overLimit))]
            if let difference {
                members += [("offset", .number(Int64(difference.offset))),
                            ("old", .string(Self.hex(difference.oldBytes))), ("new", .string(Self.hex(difference.newBytes)))]
            }
            return .object(members)
        case .unavailable(let reason):
            return .object([("type", .string("unavailable")), ("reason", .string(reason))])
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

extension DiffPatches.Source {
    /// The input's name in messages.
    var name: String {
        switch self {
        case .path(let path): path
        case .archive(_, let name): name
        }
    }
}
