import FileWrapperArchive
import Foundation
import TestSupport

extension Interop {
    /// What survives one trip through an archive and a program, beyond what
    /// always must: paths, kinds, file bytes and symlink targets.
    struct Fidelity: Sendable {
        /// How much of a modification time is kept.
        enum Times: Sendable {
            /// To the nanosecond (pax).
            case nanoseconds
            /// Truncated to 100 ns (7z's Windows FILETIME).
            case hundredNanoseconds
            /// Within 1 µs: Python holds a time as a binary float, whose
            /// steps are about 0.24 µs at today's dates.
            case binaryFloat
            /// Truncated to whole seconds (ustar, GNU tar, cpio, zip's
            /// extended-timestamp field).
            case seconds
            /// Truncated to even seconds (zip's DOS time, when an archive
            /// has nothing better).
            case evenSeconds
            /// Not restored at all.
            case none

            /// What an archive in `container` keeps.
            init(keptBy container: ArchiveFormat.Container) {
                switch container {
                case .pax: self = .nanoseconds
                case .sevenZip: self = .hundredNanoseconds
                case .ustar, .gnutar, .cpio, .zip: self = .seconds
                }
            }
        }

        var times: Times
        /// Whether symlinks get their own modification time back.
        var symlinkTimes = true
        /// Whether permission bits are restored.
        var modes = true
        /// Whether symlinks come out as regular files that hold the target.
        var symlinksAsFiles = false
    }

    /// How the tree at `actual` differs from the tree at `expected` (the
    /// roots themselves aside), one line per difference, each naming the path.
    static func differences(expected: DiskTree, actual: DiskTree, fidelity: Fidelity) -> [String] {
        var lines: [String] = []
        let paths = Set(expected.entries.keys).union(actual.entries.keys).subtracting([""])
        for path in paths.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard let want = expected.entries[path] else {
                lines.append("\(path): not in the original tree")
                continue
            }
            guard let got = actual.entries[path] else {
                lines.append("\(path): missing")
                continue
            }
            lines += differences(want, got, fidelity: fidelity).map { "\(path): \($0)" }
        }
        return lines
    }

    private static func differences(_ want: DiskTree.Entry, _ got: DiskTree.Entry, fidelity: Fidelity) -> [String] {
        if want.kind == "symlink", fidelity.symlinksAsFiles {
            let target = Data((want.linkTarget ?? "").utf8)
            return got.kind == "file" && got.contents == target
                ? [] : ["a \(got.kind), expected a file holding the symlink's target \"\(want.linkTarget ?? "")\""]
        }
        guard got.kind == want.kind else { return ["a \(got.kind), expected a \(want.kind)"] }
        var lines: [String] = []
        if got.contents != want.contents {
            lines.append("contents differ (\(got.contents?.count ?? 0) bytes, expected \(want.contents?.count ?? 0))")
        }
        if got.linkTarget != want.linkTarget {
            lines.append("symlink target \"\(got.linkTarget ?? "")\", expected \"\(want.linkTarget ?? "")\"")
        }
        if fidelity.modes, want.kind != "symlink", got.mode != want.mode {
            lines.append("mode \(String(got.mode, radix: 8)), expected \(String(want.mode, radix: 8))")
        }
        if want.kind != "symlink" || fidelity.symlinkTimes, let expected = kept(want.modified, fidelity.times),
           !matches(got.modified, expected, fidelity.times) {
            lines.append("modified \(format(got.modified)), expected \(format(expected)) (original \(format(want.modified)))")
        }
        return lines
    }

    /// The part of `time` that `times` keeps; `nil` when nothing is kept.
    private static func kept(_ time: DiskTree.timespecValue, _ times: Fidelity.Times) -> DiskTree.timespecValue? {
        switch times {
        case .nanoseconds, .binaryFloat: time
        case .hundredNanoseconds: .init(seconds: time.seconds, nanoseconds: time.nanoseconds / 100 * 100)
        case .seconds: .init(seconds: time.seconds, nanoseconds: 0)
        case .evenSeconds: .init(seconds: time.seconds & ~1, nanoseconds: 0)
        case .none: nil
        }
    }

    private static func matches(_ got: DiskTree.timespecValue, _ expected: DiskTree.timespecValue, _ times: Fidelity.Times) -> Bool {
        guard times == .binaryFloat else { return got == expected }
        let difference = (got.seconds - expected.seconds) * 1_000_000_000 + got.nanoseconds - expected.nanoseconds
        return abs(difference) < 1_000
    }

    private static func format(_ time: DiskTree.timespecValue) -> String {
        "\(time.seconds).\(String(repeating: "0", count: 9 - String(time.nanoseconds).count))\(time.nanoseconds)"
    }

    /// How a program's listing differs from the tree's paths: missing,
    /// unexpected and repeated paths. Directory names may end in "/" and any
    /// name may start with "./", as each program prints them.
    static func listingDifferences(_ listing: String, expected: DiskTree) -> [String] {
        let listed = listing.split(separator: "\n").map { line -> String in
            var name = Substring(line)
            if name.hasPrefix("./") { name = name.dropFirst(2) }
            while name.hasSuffix("/") { name = name.dropLast() }
            return String(name)
        }.filter { $0 != "" && $0 != "." }  // the root's own entry (`./`, `.`), which is the tree itself
        let wanted = Set(expected.entries.keys).subtracting([""])
        let counts = Dictionary(listed.map { ($0, 1) }, uniquingKeysWith: +)
        var lines = wanted.subtracting(counts.keys).sorted().map { "\($0): not listed" }
        lines += Set(counts.keys).subtracting(wanted).sorted().map { "\($0): listed, but not in the tree" }
        lines += counts.filter { $0.value > 1 }.keys.sorted().map { "\($0): listed \(counts[$0]!) times" }
        return lines
    }
}
