/// Reads mtree text into manifest entries as libarchive's mtree reader
/// does: `/set` and `/unset` defaults; full paths (a name with a `/`, or
/// `.`) and relative ones (a directory's line enters it, `..` leaves it);
/// a full path on several lines merged, later keywords winning; `\ooo`
/// and C-style escapes; `\` at the end of a line continuing it; comments
/// and blank lines skipped. Keywords a manifest has no field for, and
/// those that do not apply to the entry's type, are ignored.
///
/// Any input gives entries or a ``ManifestError`` naming the line, never
/// a crash: the parser is fuzzed.
struct MtreeParser {
    /// The source our own header comment names, when there is one.
    private(set) var source: Manifest.Source?
    private let file: String
    /// What the file has declared so far, against the limits.
    private var declared: ManifestFileSyntax.Declared
    /// The `/set` defaults. Every entry keeps the dictionary as it was at
    /// its line, shared with the entries around it (a `/set` or `/unset`
    /// makes a new one), never a copy of its own.
    private var defaults: Keywords = [:]
    /// Where relative names are, as the directory lines left it.
    private var directory: [UInt8] = []
    private var pending: [PendingEntry] = []
    /// Positions in `pending` of the entries given by full path.
    private var fullPathEntries: [[UInt8]: Int] = [:]

    /// The keywords a manifest has a field for; the others are never kept.
    private enum Keyword: String {
        case type, mode, time, uid, gid, size, sha256digest, sha256, link
    }

    private typealias Keywords = [Keyword: [UInt8]]

    /// An entry's path, the defaults at its line and its own keywords
    /// (which win), and the number of its first line.
    private struct PendingEntry {
        var path: [UInt8]
        var defaults: Keywords
        var keywords: Keywords
        var number: Int

        subscript(key: Keyword) -> [UInt8]? {
            keywords[key] ?? defaults[key]
        }
    }

    init(file: String, limits: ManifestReadLimits) {
        self.file = file
        declared = ManifestFileSyntax.Declared(within: limits, file: file)
    }

    /// The entries of the mtree text `bytes`, refused at the first line
    /// that passes a limit.
    mutating func parse(_ bytes: [UInt8]) throws(ManifestError) -> [ManifestEntry] {
        // Logical lines, continuations (`\` at the end of a line) joined,
        // each read as it ends, with the number of its first physical line.
        var current: [UInt8] = []
        var number = 1, start = 1
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                let next = bytes[index + 1]
                if next == UInt8(ascii: "\n") {
                    current.append(UInt8(ascii: " "))
                    number += 1
                } else {
                    current += [byte, next]
                }
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\n") {
                try read(current, number: start)
                current.removeAll(keepingCapacity: true)
                number += 1
                start = number
            } else {
                current.append(byte)
            }
            index += 1
        }
        if !current.isEmpty { try read(current, number: start) }
        var entries: [ManifestEntry] = []
        entries.reserveCapacity(pending.count)
        for item in pending {
            let entry = try entry(item)
            try declared.countContents(of: entry, place: "line \(item.number)")
            entries.append(entry)
        }
        return entries
    }

    private mutating func read(_ line: [UInt8], number: Int) throws(ManifestError) {
        let tokens = line.split(whereSeparator: ManifestFileSyntax.isSpace)
        guard let first = tokens.first else { return }
        let words = tokens.dropFirst()
        if first.first == UInt8(ascii: "#") {
            readComment(tokens)
        } else if first.elementsEqual("/set".utf8) {
            for word in words {
                if let (key, value) = Self.keyword(word) { defaults[key] = value }
            }
        } else if first.elementsEqual("/unset".utf8) {
            for word in words {
                if word.elementsEqual("all".utf8) {
                    defaults = [:]
                } else if let key = Keyword(rawValue: String(decoding: word.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)) {
                    defaults[key] = nil
                }
            }
        } else if first.first == UInt8(ascii: "/") {
            throw ManifestError(file: file, message: "line \(number): \"\(PathDisplay.text(first))\" is neither /set nor /unset")
        } else {
            var keywords: Keywords = [:]
            for word in words {
                if let (key, value) = Self.keyword(word) { keywords[key] = value }
            }
            try addEntry(MtreeText.unescaped(first), keywords: keywords, number: number)
        }
    }

    private mutating func addEntry(_ name: [UInt8], keywords: Keywords, number: Int) throws(ManifestError) {
        let dot = UInt8(ascii: "."), slash = UInt8(ascii: "/")
        if name == [dot, dot] {
            if let slashIndex = directory.lastIndex(of: slash) {
                directory.removeSubrange(slashIndex...)
            } else {
                directory = []
            }
            return
        }
        if name == [dot] || name.contains(slash) {
            let key = ManifestPath.normalized(name) ?? name
            if let index = fullPathEntries[key] {
                // Later lines win, their defaults too, as libarchive merges them.
                let earlier = pending[index]
                pending[index].keywords = earlier.defaults.merging(earlier.keywords) { $1 }.merging(defaults) { $1 }.merging(keywords) { $1 }
                pending[index].defaults = [:]
            } else {
                try declared.countEntry(at: name, place: "line \(number)")
                fullPathEntries[key] = pending.count
                pending.append(PendingEntry(path: name, defaults: defaults, keywords: keywords, number: number))
            }
            return
        }
        // Checked before it is kept: the path of a directory is where the next relative names go.
        let path = directory.isEmpty ? name : directory + [slash] + name
        try declared.countEntry(at: path, place: "line \(number)")
        let entry = PendingEntry(path: path, defaults: defaults, keywords: keywords, number: number)
        if entry[.type] == Array("dir".utf8) { directory = path }
        pending.append(entry)
    }

    /// Our header comment, `# made by FileWrapperKit from kind=… name=… format=…`.
    private mutating func readComment(_ tokens: [ArraySlice<UInt8>]) {
        let marker = ["#", "made", "by", "FileWrapperKit", "from"]
        guard tokens.count > marker.count, zip(tokens, marker).allSatisfy({ $0.elementsEqual($1.utf8) }) else { return }
        var values: [String: [UInt8]] = [:]
        for word in tokens.dropFirst(marker.count) {
            if let (key, value) = Self.headerValue(word) { values[key] = MtreeText.unescaped(value) }
        }
        guard let kind = values["kind"].flatMap({ Manifest.Source.Kind(rawValue: String(decoding: $0, as: UTF8.self)) }),
              let name = values["name"] else { return }
        source = Manifest.Source(
            kind: kind, name: String(decoding: name, as: UTF8.self), format: values["format"].map { String(decoding: $0, as: UTF8.self) })
    }

    /// `key=value` for a key a manifest has a field for; `nil` for any
    /// other key and for a word without `=` (`optional`, `nochange`).
    private static func keyword(_ word: ArraySlice<UInt8>) -> (Keyword, [UInt8])? {
        guard let equals = word.firstIndex(of: UInt8(ascii: "=")),
              let key = Keyword(rawValue: String(decoding: word[..<equals], as: UTF8.self)) else { return nil }
        return (key, Array(word[(equals + 1)...]))
    }

    /// A `key=value` word of our header comment.
    private static func headerValue(_ word: ArraySlice<UInt8>) -> (String, [UInt8])? {
        guard let equals = word.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        return (String(decoding: word[..<equals], as: UTF8.self), Array(word[(equals + 1)...]))
    }

    private func entry(_ item: PendingEntry) throws(ManifestError) -> ManifestEntry {
        func failure(_ message: String) -> ManifestError {
            ManifestError(
                file: file, entry: ManifestFileSyntax.display(ManifestPath.normalized(item.path) ?? item.path),
                message: "line \(item.number): " + message)
        }
        func text(_ key: Keyword) -> String? {
            item[key].map { String(decoding: $0, as: UTF8.self) }
        }
        let kind: ManifestEntry.Kind
        switch text(.type) {
        case nil, "file": kind = .file
        case "dir": kind = .directory
        case "link": kind = .symlink
        case "block", "char", "fifo", "socket": kind = .other
        case let other?: throw failure("type=\(PathDisplay.text(other.utf8)) is not file, dir, link, block, char, fifo or socket")
        }
        var entry = ManifestEntry(path: item.path, kind: kind)
        if let value = text(.mode) {
            guard let mode = ManifestFileSyntax.permissions(octal: value) else { throw failure("mode= is not permission bits in octal") }
            entry.permissions = mode
        }
        if let value = text(.time) {
            guard let time = ManifestFileSyntax.time(value, nineDigits: false) else {
                throw failure("time= is not seconds and nanoseconds (\"1700000000.000000001\")")
            }
            entry.modified = time
        }
        if let user = text(.uid), let group = text(.gid) {
            guard let userID = ManifestFileSyntax.unsignedDecimal(user).flatMap(UInt32.init(exactly:)),
                  let groupID = ManifestFileSyntax.unsignedDecimal(group).flatMap(UInt32.init(exactly:)) else {
                throw failure("uid= or gid= is not a 32-bit user or group ID")
            }
            entry.owner = FileOwner(userID: userID, groupID: groupID)
        }
        switch kind {
        case .file:
            if let value = text(.size) {
                guard let size = ManifestFileSyntax.unsignedDecimal(value) else { throw failure("size= is not a number of bytes") }
                entry.size = size
            }
            if let value = text(.sha256digest) ?? text(.sha256) {
                guard let digest = SHA256Digest(hex: value) else { throw failure("sha256digest= is not 64 hexadecimal digits") }
                entry.contentDigest = digest
            }
        case .symlink:
            entry.linkTarget = item[.link].map(MtreeText.unescaped)
        case .directory, .hardLink, .other:
            break
        }
        return entry
    }
}

/// Names in mtree as `vis(3)` writes them for it: every byte outside
/// printable ASCII, and the bytes mtree gives a meaning (`\ # = * ? [`),
/// as a backslash and three octal digits.
enum MtreeText {
    static func append(escaping bytes: [UInt8], to text: inout ManifestText) {
        for byte in bytes {
            if byte <= 0x20 || byte >= 0x7F || isSpecial(byte) {
                text.append(byte: UInt8(ascii: "\\"))
                text.append(digitsOf: UInt64(byte), radix: 8, width: 3)
            } else {
                text.append(byte: byte)
            }
        }
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\\"), UInt8(ascii: "#"), UInt8(ascii: "="), UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["): true
        default: false
        }
    }

    /// The bytes of an escaped name: `\ooo` (first digit 0 to 3), `\0`,
    /// `\a \b \f \n \r \s \t \v \\`; a backslash before anything else is kept.
    static func unescaped(_ text: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(text)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte == UInt8(ascii: "\\"), index < bytes.count else {
                result.append(byte)
                continue
            }
            let next = bytes[index]
            if (0x30...0x33).contains(next), index + 2 < bytes.count,
               (0x30...0x37).contains(bytes[index + 1]), (0x30...0x37).contains(bytes[index + 2]) {
                result.append((next - 0x30) << 6 | (bytes[index + 1] - 0x30) << 3 | (bytes[index + 2] - 0x30))
                index += 3
            } else if let plain = simpleEscapes[next] {
                result.append(plain)
                index += 1
            } else {
                result.append(byte)
            }
        }
        return result
    }

    private static let simpleEscapes: [UInt8: UInt8] = [
        UInt8(ascii: "0"): 0, UInt8(ascii: "a"): 7, UInt8(ascii: "b"): 8, UInt8(ascii: "f"): 12, UInt8(ascii: "n"): 10,
        UInt8(ascii: "r"): 13, UInt8(ascii: "s"): 32, UInt8(ascii: "t"): 9, UInt8(ascii: "v"): 11, UInt8(ascii: "\\"): 0x5C,
    ]
}
