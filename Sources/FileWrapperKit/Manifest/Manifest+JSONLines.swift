import Foundation

extension Manifest {
    /// The manifest as JSON Lines (`docs/manifest-format.md`): a header
    /// object with the entry count, then one entry object a line, so that a
    /// reader can stream it and tell a cut-off file from a whole one.
    func jsonLinesBytes() -> [UInt8] {
        var bytes = Array("{\"format\":\"fwk-manifest-lines\",\"version\":\(ManifestJSONFields.version),\"source\":".utf8)
        bytes += ManifestJSONFields.sourceObject(source)
        if let treeDigestText {
            bytes += Array(",\"treeDigest\":\"\(treeDigestText)\"".utf8)
        }
        bytes += Array(",\"metadataDigest\":\"\(metadataDigestText)\",\"entries\":\(entries.count)}\n".utf8)
        for entry in entries {
            bytes += ManifestJSONFields.entryObject(entry)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
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
