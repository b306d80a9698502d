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

    /// Reads a JSON Lines manifest; errors name the line. Blank lines are skipped.
    init(jsonLines data: Data, name: String) throws(ManifestError) {
        var sawHeader = false
        var source = Source(kind: .bundle, name: name)
        var recorded = ManifestFileSyntax.RecordedDigests()
        var expectedCount: Int64 = 0
        var entries: [ManifestEntry] = []
        let bytes = [UInt8](data)
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let place = "line \(index + 1)"
            guard line.contains(where: { !ManifestFileSyntax.isSpace($0) }) else { continue }
            let parsed: Any
            do {
                parsed = try JSONSerialization.jsonObject(with: Data(line))
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
                expectedCount = count
                sawHeader = true
                continue
            }
            entries.append(try ManifestJSONFields.entry(parsed, place: place, file: name, recorded: &recorded))
        }
        guard sawHeader else {
            throw ManifestError(file: name, message: "no header line")
        }
        guard Int64(entries.count) == expectedCount else {
            throw ManifestError(file: name, message: "the header says \(expectedCount) entries but the file holds \(entries.count): it is cut off or was edited")
        }
        self = try ManifestFileSyntax.manifest(entries, source: source, recorded: recorded, file: name)
    }
}
