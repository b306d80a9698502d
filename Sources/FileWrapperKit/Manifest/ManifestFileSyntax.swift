/// What the manifest file formats share: the text of times, modes and
/// digests, and the last step of every reader, which builds the manifest
/// and checks the digests the file recorded.
package enum ManifestFileSyntax {
    /// `<seconds>.<nanoseconds>`: whole seconds since 1970 rounded down
    /// (negative before 1970), then always nine digits of nanoseconds past
    /// them (`-1.500000000` is half a second before 1970).
    package static func text(_ time: FileTimestamp) -> String {
        var text = ManifestText()
        text.append(time: time)
        return String(decoding: text.bytes, as: UTF8.self)
    }

    /// A time written as ``text(_:)`` writes it. With `nineDigits` false,
    /// as mtree readers take it: the seconds alone, or the digits after
    /// the dot read as a whole number of nanoseconds (`5.5` is 5 s and
    /// 5 ns, libarchive's reading).
    static func time(_ text: some StringProtocol, nineDigits: Bool) -> FileTimestamp? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let seconds = signedDecimal(parts[0]) else { return nil }
        guard parts.count == 2 else { return nineDigits ? nil : FileTimestamp(seconds: seconds) }
        let fraction = parts[1]
        guard !fraction.isEmpty, fraction.count <= 9, !nineDigits || fraction.count == 9,
              let nanoseconds = unsignedDecimal(fraction) else { return nil }
        return FileTimestamp(seconds: seconds, nanoseconds: Int32(nanoseconds))
    }

    /// Permission bits as four octal digits (`0755`).
    package static func modeText(_ permissions: UInt16) -> String {
        var text = ManifestText()
        text.append(mode: permissions)
        return String(decoding: text.bytes, as: UTF8.self)
    }

    /// Permission bits from octal digits; `nil` for anything else or
    /// bits beyond `0o7777`.
    static func permissions(octal text: some StringProtocol) -> UInt16? {
        guard !text.isEmpty, text.utf8.count <= 6, text.utf8.allSatisfy({ (0x30...0x37).contains($0) }),
              let value = UInt16(text, radix: 8), value <= 0o7777 else { return nil }
        return value
    }

    /// A decimal number of ASCII digits, without sign, that fits in 63 bits.
    static func unsignedDecimal(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }

    /// A decimal number with an optional leading `-`.
    static func signedDecimal(_ text: some StringProtocol) -> Int64? {
        guard text.hasPrefix("-") else { return unsignedDecimal(text) }
        let magnitude = text.dropFirst()
        guard !magnitude.isEmpty, magnitude.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }

    /// A digest written as `prefix` and 64 hexadecimal digits.
    static func digest(_ text: String, prefix: String) -> SHA256Digest? {
        guard text.hasPrefix(prefix) else { return nil }
        return SHA256Digest(hex: text.dropFirst(prefix.count))
    }

    /// Space, tab, line feed or carriage return: whitespace in JSON, and
    /// between the words of an mtree line.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A path for messages: `.` for the root, escaped as ``PathDisplay`` escapes.
    static func display(_ path: [UInt8]) -> String {
        path.isEmpty ? "." : PathDisplay.text(path)
    }

    /// The digests a manifest file records, to check against those
    /// computed from its entries.
    struct RecordedDigests {
        var tree: SHA256Digest?
        var metadata: SHA256Digest?
        /// Tree digests of directories, by path as the file wrote it.
        var directories: [(path: [UInt8], digest: SHA256Digest)] = []
    }

    /// What a manifest file has declared so far, counted against its
    /// limits as each entry is read, so that a file over them is refused
    /// at the line (or entry) that passes one, before more is made of it.
    struct Declared {
        let limits: ManifestReadLimits
        let file: String
        private(set) var entries = 0
        private(set) var bytes: Int64 = 0

        init(within limits: ManifestReadLimits, file: String) {
            self.limits = limits
            self.file = file
        }

        /// Counts `entry`, read at `place` (`line 4`, `entry 3`): one entry
        /// more, its path, its link target and its size.
        mutating func count(_ entry: ManifestEntry, place: String) throws(ManifestError) {
            try countEntry(at: entry.path, place: place)
            try countContents(of: entry, place: place)
        }

        /// One entry more, at `path`: refused past ``ManifestReadLimits/maxEntries``,
        /// and for a path longer, deeper, or with a longer name, than allowed.
        mutating func countEntry(at path: [UInt8], place: String) throws(ManifestError) {
            entries += 1
            if entries > limits.maxEntries {
                throw refusal(path, place, "the file holds more than the limit of \(limits.maxEntries) entries", .maxEntries)
            }
            // As the manifest keeps it: `./a//b` is `a/b`.
            if path.count > limits.maxPathLength, (ManifestPath.normalized(path) ?? path).count > limits.maxPathLength {
                throw refusal(path, place, "the path is longer than the limit of \(limits.maxPathLength) bytes", .maxPathLength)
            }
            // The names, without empty ones and `.`, in one pass: this runs for every entry.
            var depth = 0, longest = 0, start = 0
            for end in 0...path.count where end == path.count || path[end] == ManifestPath.separator {
                let length = end - start
                if length > 1 || length == 1 && path[start] != UInt8(ascii: ".") {
                    depth += 1
                    longest = max(longest, length)
                }
                start = end + 1
            }
            if longest > limits.maxNameLength {
                throw refusal(path, place, "the path has a name of \(longest) bytes, longer than the limit of \(limits.maxNameLength)", .maxNameLength)
            }
            if depth > limits.maxDepth {
                throw refusal(path, place, "the path is deeper than the limit of \(limits.maxDepth) levels", .maxDepth)
            }
        }

        /// The link target and the size `entry` declares: a target longer
        /// than allowed is refused, and so are sizes that add up to more
        /// than ``ManifestReadLimits/maxBytes`` (checked arithmetic: no
        /// sum can pass `Int64.max`).
        mutating func countContents(of entry: ManifestEntry, place: String) throws(ManifestError) {
            if let target = entry.linkTarget, target.count > limits.maxLinkLength {
                throw refusal(entry.path, place, "the link target is longer than the limit of \(limits.maxLinkLength) bytes", .maxLinkLength)
            }
            guard let size = entry.size else { return }
            let (sum, overflow) = bytes.addingReportingOverflow(size)
            guard !overflow, sum <= limits.maxBytes else {
                throw refusal(entry.path, place, "the sizes declared so far add up to more than the limit of \(limits.maxBytes) bytes", .maxBytes)
            }
            bytes = sum
        }

        private func refusal(_ path: [UInt8], _ place: String, _ message: String, _ limit: ManifestReadLimits.Limit) -> ManifestError {
            ManifestError(file: file, entry: display(ManifestPath.normalized(path) ?? path), message: "\(place): " + message, limit: limit)
        }
    }

    /// The manifest of `entries` with `source`, made by ``ManifestBuilder``
    /// (digests computed afresh) with at most `limits.maxEntries` entries
    /// counting the folders that paths imply, after checking that no path
    /// or link target holds a NUL byte and before checking `recorded`.
    /// Errors name `file`, the manifest file, rather than the source it describes.
    static func manifest(
        _ entries: [ManifestEntry], source: Manifest.Source, recorded: RecordedDigests = RecordedDigests(), file: String,
        limits: ManifestReadLimits
    ) throws(ManifestError) -> Manifest {
        var builder = ManifestBuilder(source: source)
        builder.maxEntries = limits.maxEntries
        do throws(ManifestError) {
            for entry in entries {
                if entry.path.contains(0) || entry.linkTarget?.contains(0) == true {
                    throw ManifestError(
                        file: file, entry: display(entry.path), message: "a path or link target holds a NUL byte, which no file name can")
                }
                try builder.add(entry)
            }
            let manifest = try (consume builder).finish()
            try check(recorded, against: manifest, file: file)
            return manifest
        } catch {
            throw ManifestError(file: file, entry: error.entry, message: error.message, limit: error.limit)
        }
    }

    private static func check(_ recorded: RecordedDigests, against manifest: Manifest, file: String) throws(ManifestError) {
        if let tree = recorded.tree, tree != manifest.treeDigest {
            throw ManifestError(file: file, message: "the recorded tree digest does not match its entries")
        }
        if let metadata = recorded.metadata, metadata != manifest.metadataDigest {
            throw ManifestError(file: file, message: "the recorded metadata digest does not match its entries")
        }
        for (path, digest) in recorded.directories {
            let entry = manifest.entry(at: ManifestPath.normalized(path) ?? path)
            guard entry?.treeDigest == digest else {
                throw ManifestError(file: file, entry: display(path), message: "the recorded tree digest of this directory does not match the entries below it")
            }
        }
    }
}
