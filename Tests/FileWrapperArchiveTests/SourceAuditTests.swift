import Foundation
import Testing

/// Reads the package's own sources for mistakes the compiler cannot see:
/// a path from an archive handed to a call that can follow a symlink, and
/// a name compared or hashed as a Swift `String`, which is canonical
/// equivalence (U+212A KELVIN SIGN equals `K`) where the disk compares
/// bytes (issue 20); a system call made outside the funnel (issue 21). A new call site or a new `String` key fails the test
/// until it is classified here, with its reason.
@Suite struct SourceAuditTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A line of code: its file below `Sources/`, its number, and its text
    /// with string literals and the comment after it removed.
    struct Line: CustomStringConvertible {
        var file: String
        var number: Int
        var code: String
        var description: String { "\(file):\(number): \(code)" }
    }

    /// The code lines of the Swift files below `Sources/` whose path starts with one of `prefixes`.
    static func lines(under prefixes: [String] = [""]) throws -> [Line] {
        let sources = root.appendingPathComponent("Sources")
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path)
            .filter { path in path.hasSuffix(".swift") && prefixes.contains { path.hasPrefix($0) } }
            .sorted()
        #expect(!files.isEmpty, "no sources under \(prefixes)")
        var lines: [Line] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                var code = String(raw).replacing(#/"(?:[^"\\]|\\.)*"/#, with: "\"\"")
                if let comment = code.firstRange(of: "//") { code = String(code[..<comment.lowerBound]) }
                code = code.trimmingCharacters(in: .whitespaces)
                if !code.isEmpty { lines.append(Line(file: file, number: index + 1, code: code)) }
            }
        }
        return lines
    }

    /// How a call of the `*at` family, or of the funnel's `open`, is kept
    /// from following a symlink; nil when it is not.
    static func safety(of call: String, in line: Line) -> String? {
        let code = line.code
        switch call {
        case "fchmodat":
            return nil  // follows a final symlink; Linux has no AT_SYMLINK_NOFOLLOW for it
        case "fstatat", "utimensat", "fchownat", "Syscall.status":
            return call == "Syscall.status" || code.contains("AT_SYMLINK_NOFOLLOW") ? "AT_SYMLINK_NOFOLLOW" : nil
        case "linkat", "Syscall.link":
            return code.contains("AT_SYMLINK_FOLLOW") ? nil : "linkat without AT_SYMLINK_FOLLOW links the name itself"
        case "mkdirat", "symlinkat", "unlinkat", "readlinkat", "renameat", "renameat2", "cfs_renameat2":
            return "acts on the final name itself, never on what it points to"
        case "cfs_open_beneath", "Syscall.openDirectory":
            return "O_NOFOLLOW, or openat2 with RESOLVE_NO_SYMLINKS"
        default:  // openat, Syscall.open, open(cName:
            if code.contains("O_NOFOLLOW") { return "O_NOFOLLOW" }
            if code.contains("in: AT_FDCWD") { return "a path the caller gave, resolved as the caller's own" }
            if line.file == "FileWrapperKit/Disk/Syscalls.swift" { return "the funnel passes its caller's flags, checked at each caller" }
            return reviewedOpens[line.file].flatMap { code.contains($0.text) ? $0.reason : nil }
        }
    }

    /// Opens without `O_NOFOLLOW` whose name comes from nowhere an archive reaches.
    static let reviewedOpens: [String: (text: String, reason: String)] = [
        "FileWrapperKit/Disk/DirectoryCursor.swift": ("Syscall.open(\"\", in: child.fd", "`..` of a directory it opened, which is no symlink"),
        "FileWrapperKit/Manifest/Manifest+Output.swift": ("O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY",
                                                          "the output the user named, a device or FIFO written in place"),
    ]

    static let atCalls = [
        "fchmodat", "fstatat", "utimensat", "fchownat", "linkat", "unlinkat", "mkdirat", "symlinkat", "readlinkat",
        "renameat", "renameat2", "cfs_renameat2", "cfs_open_beneath", "openat", "faccessat", "mknodat",
    ]
    static let funnelCalls = ["Syscall.open", "Syscall.openDirectory", "Syscall.status", "Syscall.link", "open(cName:"]

    @Test func noCallOfTheAtFamilyCanFollowASymlink() throws {
        let patterns = try Self.atCalls.map { ($0, try Regex("(^|[^A-Za-z_.])(Glibc\\.)?\($0)\\(")) }
        var sites: [(line: Line, call: String, safety: String?)] = []
        for line in try Self.lines() {
            for (call, pattern) in patterns where line.code.contains(call + "(") && line.code.contains(pattern) {
                sites.append((line, call, Self.safety(of: call, in: line)))
            }
            for call in Self.funnelCalls where line.code.contains(call.hasSuffix(":") ? call : call + "(") {
                sites.append((line, call, Self.safety(of: call, in: line)))
            }
        }
        let unsafe = sites.filter { $0.safety == nil }
        #expect(unsafe.isEmpty, """
            calls that can follow a symlink:
            \(unsafe.map { "  \($0.line) [\($0.call)]" }.joined(separator: "\n"))
            every call site:
            \(sites.map { "  \($0.line.file):\($0.line.number) \($0.call): \($0.safety ?? "UNSAFE")" }.joined(separator: "\n"))
            """)
        // The audit sees the calls it is about: the unpacker's own.
        #expect(sites.contains { $0.line.file.hasPrefix("FileWrapperArchive/Unpacking/") && $0.call == "utimensat" })
        #expect(sites.contains { $0.line.file.hasPrefix("FileWrapperArchive/Unpacking/") && $0.call == "Syscall.openDirectory" })
    }

    /// The system calls our sources make (through Glibc or our C shim).
    /// `open`, `read`, `write` and `close` count only as `Glibc.` calls:
    /// unqualified, they are as often Swift methods of those names.
    static let systemCalls = [
        "openat", "fstatat", "fstat", "lstat", "lseek", "pread", "pwrite", "unlinkat", "mkdirat", "symlinkat", "linkat",
        "readlinkat", "renameat", "fchmod", "fchmodat", "fchown", "fchownat", "futimens", "utimensat", "fsync", "dup",
        "fdopendir", "readdir", "ftruncate", "fcntl", "Glibc.pipe", "Glibc.open", "Glibc.read", "Glibc.write", "Glibc.close",
        "cfs_renameat2", "cfs_open_beneath", "cfs_copy_file_range", "cfs_syncfs", "cfs_llistxattr", "cfs_lgetxattr",
        "cfs_flistxattr", "cfs_fgetxattr", "cfs_fsetxattr", "cfs_lock_byte", "cfs_byte_is_locked", "cfs_start_writeback",
        "cfs_affinity_count",
    ]

    /// Calls made outside a funnel closure on purpose, with why.
    static let reviewedDirectCalls: [(file: String, text: String, reason: String)] = [
        ("FileWrapperKit/Disk/ExtendedAttributes.swift", "cfs_", "the attribute calls of a target, each made inside `tolerant`, the funnel's loop for them"),
    ]

    /// Every system call goes through the funnel (`Syscall.invoke`, on its
    /// own or inside `Syscall.retrying`), where errors are named and a test
    /// can make any call fail (issue 21): the call on the line that hands it
    /// to the funnel, or on the line after it (a closure's body).
    @Test func everySystemCallGoesThroughTheFunnel() throws {
        let patterns = try Self.systemCalls.map { call in
            (call, try Regex("(^|[^A-Za-z_.])\(call.replacingOccurrences(of: ".", with: "\\."))\\("))
        }
        let funnel = ["invoke(", "retrying(", "tolerant("]
        let lines = try Self.lines()
        var direct: [String] = []
        var seen = 0
        for (index, line) in lines.enumerated() where !line.code.hasPrefix("func ") && !line.code.contains(" func ") {
            for (call, pattern) in patterns where line.code.contains(pattern) {
                seen += 1
                let previous = index > 0 && lines[index - 1].file == line.file ? lines[index - 1].code : ""
                if funnel.contains(where: { line.code.contains($0) || previous.contains($0) }) { continue }
                if Self.reviewedDirectCalls.contains(where: { line.file == $0.file && line.code.contains($0.text) }) { continue }
                direct.append("\(line) [\(call)]")
            }
        }
        #expect(direct.isEmpty, "system calls outside the funnel:\n\(direct.joined(separator: "\n"))")
        #expect(seen > 40, "the audit sees the calls it is about (\(seen))")
    }

    /// The code that decides where an archive's entries go, or which
    /// member is which: the unpacker, its tree, the readers, manifests and `cat`.
    static let nameDeciding = [
        "FileWrapperArchive/Unpacking/", "FileWrapperArchive/Reading/", "FileWrapperArchive/Manifest/",
        "FileWrapperArchive/Zip/Reading/", "FileWrapperArchive/Zip/Container/", "FileWrapperArchive/Tar/Reading/",
        "FileWrapperKit/Manifest/", "WrapInspectCommands/Cat.swift",
    ]

    /// `String` collections there that hold no names from a tree: keywords
    /// of formats and messages.
    static let reviewedStringCollections: [(file: String, text: String, reason: String)] = [
        ("FileWrapperArchive/Tar/Reading/PlainTarReader.swift", "ignored: Set<String>", "pax keywords"),
        ("FileWrapperArchive/Manifest/RoundTrip.swift", "notKept: [String]", "sentences for people"),
        ("FileWrapperArchive/Manifest/RoundTrip.swift", "-> [String]", "sentences for people"),
        ("FileWrapperKit/Manifest/Manifest+JSON.swift", "as? [String: Any]", "JSON object keys"),
        ("FileWrapperKit/Manifest/Manifest+JSONLines.swift", "as? [String: Any]", "JSON object keys"),
        ("FileWrapperKit/Manifest/ManifestJSONFields.swift", "[String: Any]", "JSON object keys"),
        ("FileWrapperKit/Manifest/MtreeParser.swift", "[String: [UInt8]]", "mtree keywords"),
        ("FileWrapperKit/Manifest/ExtendedAttributeName.swift", "keyed(_ attributes: [String: Data])", "a FileWrapper's attributes as Foundation keys them, made byte names"),
        ("FileWrapperKit/Manifest/ManifestError.swift", "public var paths: [String]", "paths for display in an error, escaped"),
    ]

    @Test func namesAreNeverStringKeysOrStringArrays() throws {
        let pattern = try Regex(#"\[String\s*[:\]]|Set<String>|Dictionary<String"#)
        let found = try Self.lines(under: Self.nameDeciding).filter { $0.code.contains(pattern) }
        let unreviewed = found.filter { line in
            !Self.reviewedStringCollections.contains { line.file == $0.file && line.code.contains($0.text) }
        }
        #expect(unreviewed.isEmpty, "String collections where names are decided:\n\(unreviewed.map { "  \($0)" }.joined(separator: "\n"))")
        // Each reviewed entry still matches something, so the list cannot go stale.
        for reviewed in Self.reviewedStringCollections {
            #expect(found.contains { $0.file == reviewed.file && $0.code.contains(reviewed.text) }, "stale: \(reviewed)")
        }
    }

    /// In the files that place an archive's entries, paths are split into
    /// ``EntryName``s, which compare bytes, and never into `String`s: `==`
    /// between two `String`-typed names would be the mistake itself.
    @Test func namesAreComparedAsBytes() throws {
        let lines = try Self.lines(under: [
            "FileWrapperArchive/Unpacking/Extraction.swift", "FileWrapperArchive/Unpacking/UnpackedTree.swift",
            "FileWrapperArchive/Unpacking/DirectoryDescriptors.swift", "FileWrapperArchive/Unpacking/FileWorkers.swift",
            "FileWrapperArchive/Reading/EntryPath.swift",
        ])
        let stringNames = try Regex(#"\b(name|names|components|target|targetNames|parentNames)\s*:\s*\[?String\b"#)
        #expect(lines.filter { $0.code.contains(stringNames) }.map(\.description) == [])
        #expect(lines.contains { $0.code.contains("let components: [EntryName]") })
    }
}
