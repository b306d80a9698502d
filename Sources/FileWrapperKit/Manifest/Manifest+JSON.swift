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
        guard list.count <= limits.maxEntries else {
            throw ManifestError(
                file: name, message: "\"entries\" holds \(list.count) entries, more than the limit of \(limits.maxEntries)", limit: .maxEntries)
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
}
