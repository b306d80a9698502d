import Foundation

extension Manifest {
    /// Writes the manifest as JSON Lines (`docs/manifest-format.md`): a
    /// header object with the entry count, then one entry object a line, so
    /// that a reader can stream it and tell a cut-off file from a whole one.
    func writeJSONLines<Failure: Error>(to deliver: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        var text = ManifestText()
        text.append(#"{"format":"fwk-manifest-lines","version":"#)
        text.append(decimal: ManifestJSONFields.version)
        text.append(#","source":"#)
        ManifestJSONFields.appendSource(source, to: &text)
        if let treeDigestText {
            text.append(#","treeDigest":""#)
            text.append(utf8: treeDigestText)
            text.append("\"")
        }
        text.append(#","metadataDigest":""#)
        text.append(utf8: metadataDigestText)
        text.append(#"","entries":"#)
        text.append(decimal: entries.count)
        text.append("}\n")
        try appendEntries(to: &text, handingOnTo: deliver) { index, text in
            ManifestJSONFields.appendEntry(entries[index], to: &text)
            text.append("\n")
        }
        try text.handOn(finishing: true, to: deliver)
    }

    /// Reads a JSON Lines manifest within `limits`; errors name the line.
    /// Blank lines are skipped. A header that declares more entries than
    /// allowed is refused before any entry is read.
    init(jsonLines data: Data, name: String, limits: ManifestReadLimits) throws(ManifestError) {
        var sawHeader = false
        var source = Source(kind: .bundle, name: name)
        var recorded = ManifestFileSyntax.RecordedDigests()
        var expectedCount: Int64 = 0
        var declared = ManifestFileSyntax.Declared(within: limits, file: name)
        var entries: [ManifestEntry] = []
        var number = 0
        var lineStart = data.startIndex
        // Line by line, each a slice of `data`: no copy, no array of lines.
        while lineStart < data.endIndex {
            let lineEnd = data[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
            let line = data[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            number += 1
            let place = "line \(number)"
            guard line.contains(where: { !ManifestFileSyntax.isSpace($0) }) else { continue }
            let parsed: Any
            do {
                parsed = try JSONSerialization.jsonObject(with: line)
            } catch {
                let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
                throw ManifestError(file: name, message: "\(place) is not valid JSON: \(reason)")
            }
            guard sawHeader else {
                guard let object = parsed as? [String: Any] else {
                    throw ManifestError(file: name, message: "\(place) is not a JSON object")
                }
                try ManifestJSONFields.checkHeader(object, format: "fwk-manifest-lines", file: name, line: place)
                source = try ManifestJSONFields.source(object["source"], file: name)
                recorded = try ManifestJSONFields.recordedDigests(object, file: name)
                guard let count = object["entries"].flatMap(ManifestJSONFields.integer), count >= 0 else {
                    throw ManifestError(file: name, message: "\(place): \"entries\" is not the number of entries")
                }
                guard count <= limits.maxEntries else {
                    throw ManifestError(
                        file: name, message: "\(place): the header declares \(count) entries, more than the limit of \(limits.maxEntries)",
                        limit: .maxEntries)
                }
                expectedCount = count
                sawHeader = true
                continue
            }
            let entry = try ManifestJSONFields.entry(parsed, place: place, file: name, recorded: &recorded)
            try declared.count(entry, place: place)
            entries.append(entry)
        }
        guard sawHeader else {
            throw ManifestError(file: name, message: "no header line")
        }
        guard Int64(entries.count) == expectedCount else {
            throw ManifestError(file: name, message: "the header says \(expectedCount) entries but the file holds \(entries.count): it is cut off or was edited")
        }
        self = try ManifestFileSyntax.manifest(entries, source: source, recorded: recorded, file: name, limits: limits)
    }
}
