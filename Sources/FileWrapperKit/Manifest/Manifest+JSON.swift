import Foundation

extension Manifest {
    /// Writes the manifest as one JSON document (`docs/manifest-format.md`):
    /// the header keys one a line, then each entry as a compact object on
    /// its own line, so that two manifests diff line by line.
    func writeJSON<Failure: Error>(to deliver: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        var text = ManifestText()
        text.append("{\n  \"format\": \"fwk-manifest\",\n  \"version\": ")
        text.append(decimal: isPartial ? ManifestJSONFields.partialVersion : ManifestJSONFields.version)
        text.append(",\n  \"source\": ")
        ManifestJSONFields.appendSource(source, to: &text)
        if let treeDigestText {
            text.append(",\n  \"treeDigest\": \"")
            text.append(utf8: treeDigestText)
            text.append("\"")
        }
        if !isPartial {
            text.append(",\n  \"metadataDigest\": \"")
            text.append(utf8: metadataDigestText)
            text.append("\"")
        }
        text.append(",\n  \"entries\": [")
        try appendEntries(to: &text, handingOnTo: deliver) { index, text in
            text.append(index == 0 ? "\n    " : ",\n    ")
            ManifestJSONFields.appendEntry(entries[index], error: unreadableError(at: index), to: &text)
        }
        text.append("\n  ]\n}\n")
        try text.handOn(finishing: true, to: deliver)
    }

    /// Reads a JSON manifest within `limits`; entries are named `entry N`,
    /// counting the root as 1.
    init(json data: Data, name: String, limits: ManifestReadLimits) throws(ManifestError) {
        // Counted on the bytes first: parsing makes an object of each entry (3 KB each), 9 GB for 3 million.
        let listed = Self.topLevelArrayValues(in: data, countingPast: limits.maxEntries)
        guard listed <= limits.maxEntries else {
            throw ManifestError(file: name, message: "\"entries\" holds more than the limit of \(limits.maxEntries) entries", limit: .maxEntries)
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw ManifestError(file: name, message: "not valid JSON: \(reason)")
        }
        guard let object = parsed as? [String: Any] else {
            throw ManifestError(file: name, message: "not a JSON object")
        }
        try ManifestJSONFields.checkHeader(object, format: "fwk-manifest", file: name)
        let source = try ManifestJSONFields.source(object["source"], file: name)
        var recorded = try ManifestJSONFields.recordedDigests(object, file: name)
        guard let list = object["entries"] as? [Any] else {
            throw ManifestError(file: name, message: "no \"entries\" array")
        }
        var declared = ManifestFileSyntax.Declared(within: limits, file: name)
        var entries: [ManifestEntry] = []
        entries.reserveCapacity(list.count)
        for (index, value) in list.enumerated() {
            let place = "entry \(index + 1)"
            let entry = try ManifestJSONFields.entry(value, place: place, file: name, recorded: &recorded)
            try declared.count(entry, place: place)
            entries.append(entry)
        }
        self = try ManifestFileSyntax.manifest(entries, source: source, recorded: recorded, file: name, limits: limits)
    }

    /// The values in the arrays that are values of the top-level object
    /// (`entries` is the only one a manifest has), counted on the bytes
    /// without parsing them; the count stops once it passes `limit`.
    /// Strings are skipped with their escapes; malformed JSON gives some
    /// count, and the parser that runs next refuses it.
    private static func topLevelArrayValues(in data: Data, countingPast limit: Int) -> Int {
        data.withUnsafeBytes { bytes in
            var count = 0
            var depth = 0
            var inArray = false, sawValue = false, inString = false, escaped = false
            for byte in bytes {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                if ManifestFileSyntax.isSpace(byte) { continue }
                if depth == 2, inArray {
                    if byte == UInt8(ascii: ",") {
                        sawValue = false
                    } else if byte != UInt8(ascii: "]"), !sawValue {
                        sawValue = true
                        count += 1
                        if count > limit { return count }
                    }
                }
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    if depth == 2 {
                        inArray = byte == UInt8(ascii: "[")
                        sawValue = false
                    }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                default:
                    break
                }
            }
            return count
        }
    }
}
