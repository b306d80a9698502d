import Foundation

extension Manifest {
    /// The manifest as one JSON document (`docs/manifest-format.md`): the
    /// header keys one a line, then each entry as a compact object on its
    /// own line, so that two manifests diff line by line.
    func jsonBytes() -> [UInt8] {
        var bytes = Array("{\n  \"format\": \"fwk-manifest\",\n  \"version\": \(ManifestJSONFields.version),\n  \"source\": ".utf8)
        bytes += ManifestJSONFields.sourceObject(source)
        if let treeDigestText {
            bytes += Array(",\n  \"treeDigest\": \"\(treeDigestText)\"".utf8)
        }
        bytes += Array(",\n  \"metadataDigest\": \"\(metadataDigestText)\",\n  \"entries\": [".utf8)
        for (index, entry) in entries.enumerated() {
            bytes += Array((index == 0 ? "\n    " : ",\n    ").utf8)
            bytes += ManifestJSONFields.entryObject(entry)
        }
        bytes += Array("\n  ]\n}\n".utf8)
        return bytes
    }

    /// Reads a JSON manifest; entries are named `entry N`, counting the root as 1.
    init(json data: Data, name: String) throws(ManifestError) {
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
        var entries: [ManifestEntry] = []
        entries.reserveCapacity(list.count)
        for (index, value) in list.enumerated() {
            entries.append(try ManifestJSONFields.entry(value, place: "entry \(index + 1)", file: name, recorded: &recorded))
        }
        self = try ManifestFileSyntax.manifest(entries, source: source, recorded: recorded, file: name)
    }
}
