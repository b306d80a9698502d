import Foundation

/// What the JSON and JSON Lines manifests share: the source object, the
/// entry objects and the header fields, written by hand in a fixed key
/// order and read from what `JSONSerialization` parsed.
enum ManifestJSONFields {
    /// The one version of the key set this code writes and reads.
    static let version = 1
    /// The version of a partial listing (`dump --json` of a tree with
    /// entries it could not read): version 1's keys and each such entry's
    /// `error`. A reader of version 1 must refuse it rather than take the
    /// unreadable folders for empty ones; this reader refuses it too, as
    /// it is no manifest to compare.
    static let partialVersion = 2

    // MARK: Writing

    /// `{"kind":…,"name":…,"format":…}`, the format only when known.
    static func appendSource(_ source: Manifest.Source, to text: inout ManifestText) {
        text.append(#"{"kind":"#)
        text.append(json: source.kind.rawValue)
        text.append(#","name":"#)
        text.append(json: source.name)
        if let format = source.format {
            text.append(#","format":"#)
            text.append(json: format)
        }
        text.append("}")
    }

    /// One entry as a compact object (`{"path":"a","kind":"file",…}`),
    /// each key only when the entry knows it, in a fixed order. Written
    /// through one cursor: this runs for every entry of a manifest.
    static func appendEntry(_ entry: ManifestEntry, error: FileWrapperError? = nil, to text: inout ManifestText) {
        text.append(atMost: longestText(of: entry) + (error.map { 96 + 6 * (($0.systemCall?.utf8.count ?? 0) + ($0.errno?.description.utf8.count ?? 0)) } ?? 0)) { text in
            appendFields(of: entry, error: error, to: &text)
        }
    }

    /// A bound on the length of ``appendEntry(_:to:)``'s text: the fixed
    /// keys and numbers, and for each byte of a name or value the longest
    /// it can become (a `\u` escape, a display escape escaped again, base64).
    private static func longestText(of entry: ManifestEntry) -> Int {
        var length = 640 + 16 * (entry.path.count + (entry.linkTarget?.count ?? 0))
        for (name, value) in entry.extendedAttributes ?? [:] {
            length += 32 + 8 * name.bytes.count + 2 * value.count
        }
        return length
    }

    private static func appendFields(of entry: ManifestEntry, error: FileWrapperError?, to text: inout TextCursor) {
        text.append("{")
        text.append(key: "path", bytes: entry.path, base64Key: "pathBase64")
        text.append(#","kind":""#)
        text.append(utf8: entry.kind.rawValue)
        text.append("\"")
        if let size = entry.size {
            text.append(#","size":"#)
            text.append(decimal: size)
        }
        if let permissions = entry.permissions {
            text.append(#","mode":""#)
            text.append(mode: permissions)
            text.append("\"")
        }
        if let modified = entry.modified {
            text.append(#","mtime":""#)
            text.append(time: modified)
            text.append("\"")
        }
        if let owner = entry.owner {
            text.append(#","uid":"#)
            text.append(decimal: owner.userID)
            text.append(#","gid":"#)
            text.append(decimal: owner.groupID)
        }
        if let target = entry.linkTarget {
            text.append(",")
            text.append(key: "target", bytes: target, base64Key: "targetBase64")
        }
        if let digest = entry.contentDigest {
            text.append(#","sha256":""#)
            text.append(hex: digest)
            text.append("\"")
        }
        if let tree = entry.treeDigest, entry.kind == .directory {
            text.append(#","treeDigest":""#)
            text.append(utf8: TreeDigest.treePrefix)
            text.append(hex: tree)
            text.append("\"")
        }
        if let attributes = entry.extendedAttributes {
            // Names in ASCII by name; the others (not UTF-8, or one of two
            // canonically equivalent names, which a JSON reader's String
            // keys would merge) by their bytes in base64.
            let sorted = attributes.sorted { $0.key < $1.key }
            let (plain, other) = (sorted.filter { $0.key.bytes.allSatisfy { $0 < 0x80 } }, sorted.filter { $0.key.bytes.contains { $0 >= 0x80 } })
            text.append(#","xattrs":{"#)
            for (index, (name, value)) in plain.enumerated() {
                if index > 0 { text.append(",") }
                text.append(json: String(decoding: name.bytes, as: UTF8.self))
                text.append(":\"")
                text.append(utf8: Data(value).base64EncodedString())
                text.append("\"")
            }
            text.append("}")
            if !other.isEmpty {
                text.append(#","xattrsBase64":{"#)
                for (index, (name, value)) in other.enumerated() {
                    if index > 0 { text.append(",") }
                    text.append("\"")
                    text.append(utf8: Data(name.bytes).base64EncodedString())
                    text.append("\":\"")
                    text.append(utf8: Data(value).base64EncodedString())
                    text.append("\"")
                }
                text.append("}")
            }
        }
        if let error {
            appendError(error, to: &text)
        }
        text.append("}")
    }

    /// `"error":{"call":"openat","errno":"EACCES","message":"Permission denied"}`:
    /// why an entry could not be read, `call` and `errno` as stable codes.
    private static func appendError(_ error: FileWrapperError, to text: inout TextCursor) {
        text.append(#","error":{"#)
        if let call = error.systemCall {
            text.append(#""call":"#)
            text.append(json: call)
        }
        if let code = error.errno {
            text.append(error.systemCall == nil ? #""errno":"# : #","errno":"#)
            text.append(json: FileWrapperError.symbol(for: code))
            text.append(#","message":"#)
            text.append(json: code.description)
        }
        text.append("}")
    }

    // MARK: Reading

    /// Checks the `format` and `version` of a parsed top-level object.
    static func checkHeader(_ object: [String: Any], format: String, file: String, line: String? = nil) throws(ManifestError) {
        let at = line.map { "\($0): " } ?? ""
        guard object["format"] as? String == format else {
            throw ManifestError(file: file, message: at + "\"format\" is not \"\(format)\"")
        }
        guard let value = object["version"] else {
            throw ManifestError(file: file, message: at + "no \"version\"")
        }
        if integer(value) == Int64(partialVersion) {
            throw ManifestError(
                file: file,
                message: at + "version \(partialVersion) is a partial listing of a tree (dump --json of a tree with entries it could not read), not a manifest")
        }
        guard let version = integer(value), version == Int64(self.version) else {
            throw ManifestError(file: file, message: at + "version \(value) is not one this reader knows (it reads version \(self.version))")
        }
    }

    /// The `source` object of a header.
    static func source(_ value: Any?, file: String) throws(ManifestError) -> Manifest.Source {
        guard let object = value as? [String: Any] else {
            throw ManifestError(file: file, message: "no \"source\" object")
        }
        guard let kindText = object["kind"] as? String, let kind = Manifest.Source.Kind(rawValue: kindText) else {
            throw ManifestError(file: file, message: "the source's \"kind\" is not bundle, file, archive or filewrapper")
        }
        guard let name = object["name"] as? String else {
            throw ManifestError(file: file, message: "the source has no \"name\"")
        }
        let format = object["format"]
        guard format == nil || format is String else {
            throw ManifestError(file: file, message: "the source's \"format\" is not a string")
        }
        return Manifest.Source(kind: kind, name: name, format: format as? String)
    }

    /// The header's `treeDigest` and `metadataDigest`, each when present.
    static func recordedDigests(_ object: [String: Any], file: String) throws(ManifestError) -> ManifestFileSyntax.RecordedDigests {
        func digest(_ key: String, prefix: String) throws(ManifestError) -> SHA256Digest? {
            guard let value = object[key] else { return nil }
            guard let text = value as? String, let digest = ManifestFileSyntax.digest(text, prefix: prefix) else {
                throw ManifestError(file: file, message: "\"\(key)\" is not \"\(prefix)\" and 64 hexadecimal digits")
            }
            return digest
        }
        return ManifestFileSyntax.RecordedDigests(
            tree: try digest("treeDigest", prefix: TreeDigest.treePrefix), metadata: try digest("metadataDigest", prefix: TreeDigest.metadataPrefix))
    }

    /// One entry object; `place` (`entry 3`, `line 4`) names it in errors
    /// until its path is known. A directory's recorded tree digest is
    /// added to `recorded`.
    static func entry(
        _ value: Any, place: String, file: String, recorded: inout ManifestFileSyntax.RecordedDigests
    ) throws(ManifestError) -> ManifestEntry {
        guard let object = value as? [String: Any] else {
            throw ManifestError(file: file, message: "\(place) is not an object")
        }
        guard object["path"] != nil, let path = try bytes(object, "path", base64Key: "pathBase64", file: file, place: place) else {
            throw ManifestError(file: file, message: "\(place) has no \"path\"")
        }
        func failure(_ message: String) -> ManifestError {
            ManifestError(file: file, entry: ManifestFileSyntax.display(path), message: "\(place): " + message)
        }
        guard let kindText = object["kind"] as? String, let kind = ManifestEntry.Kind(rawValue: kindText) else {
            throw failure("\"kind\" is not file, directory, symlink, hardlink or other")
        }
        var entry = ManifestEntry(path: path, kind: kind)
        if let value = object["size"] {
            guard let size = integer(value), size >= 0 else { throw failure("\"size\" is not a whole number of bytes") }
            entry.size = size
        }
        if let value = object["mode"] {
            guard let text = value as? String, let mode = ManifestFileSyntax.permissions(octal: text) else {
                throw failure("\"mode\" is not permission bits in octal (\"0755\")")
            }
            entry.permissions = mode
        }
        if let value = object["mtime"] {
            guard let text = value as? String, let time = ManifestFileSyntax.time(text, nineDigits: true) else {
                throw failure("\"mtime\" is not seconds, a dot and nine digits of nanoseconds")
            }
            entry.modified = time
        }
        switch (object["uid"], object["gid"]) {
        case (nil, nil): break
        case (let user?, let group?):
            guard let user = integer(user).flatMap(UInt32.init(exactly:)), let group = integer(group).flatMap(UInt32.init(exactly:)) else {
                throw failure("\"uid\" or \"gid\" is not a 32-bit user or group ID")
            }
            entry.owner = FileOwner(userID: user, groupID: group)
        default: throw failure("\"uid\" and \"gid\" come together")
        }
        entry.linkTarget = try bytes(object, "target", base64Key: "targetBase64", file: file, place: place)
        if let value = object["sha256"] {
            guard let text = value as? String, let digest = SHA256Digest(hex: text) else {
                throw failure("\"sha256\" is not 64 hexadecimal digits")
            }
            entry.contentDigest = digest
        }
        if let value = object["treeDigest"] {
            guard let text = value as? String, let digest = ManifestFileSyntax.digest(text, prefix: TreeDigest.treePrefix) else {
                throw failure("\"treeDigest\" is not \"\(TreeDigest.treePrefix)\" and 64 hexadecimal digits")
            }
            recorded.directories.append((path, digest))
        }
        if let value = object["xattrs"] {
            guard let values = value as? [String: Any] else { throw failure("\"xattrs\" is not an object") }
            var attributes: [ExtendedAttributeName: [UInt8]] = [:]
            for (name, value) in values {
                guard let text = value as? String, let data = Data(base64Encoded: text) else {
                    throw failure("the extended attribute \"\(name)\" is not base64")
                }
                attributes[ExtendedAttributeName(name)] = Array(data)
            }
            if let value = object["xattrsBase64"] {
                guard let values = value as? [String: Any] else { throw failure("\"xattrsBase64\" is not an object") }
                for (name, value) in values {
                    guard let nameData = Data(base64Encoded: name), let text = value as? String, let data = Data(base64Encoded: text) else {
                        throw failure("the extended attribute \"\(name)\" in \"xattrsBase64\" is not base64")
                    }
                    attributes[ExtendedAttributeName(Array(nameData))] = Array(data)
                }
            }
            entry.extendedAttributes = attributes
        }
        return entry
    }

    /// A path or link target: the bytes under `base64Key` when present,
    /// else the UTF-8 of the text under `key`; `nil` when neither is there.
    private static func bytes(
        _ object: [String: Any], _ key: String, base64Key: String, file: String, place: String
    ) throws(ManifestError) -> [UInt8]? {
        if let value = object[base64Key] {
            guard let text = value as? String, let data = Data(base64Encoded: text) else {
                throw ManifestError(file: file, message: "\(place): \"\(base64Key)\" is not base64")
            }
            return Array(data)
        }
        guard let value = object[key] else { return nil }
        guard let text = value as? String else {
            throw ManifestError(file: file, message: "\(place): \"\(key)\" is not a string")
        }
        return Array(text.utf8)
    }

    /// A JSON number that is a whole number within 64 bits; `nil` for
    /// `true` and `false`, fractions, strings and numbers out of range.
    static func integer(_ value: Any) -> Int64? {
        // JSONSerialization gives NSNumber for numbers and for true and
        // false, which only the type code tells apart.
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        return number as? Int64
    }
}

/// Strings in JSON: quoted, with `"` and `\` escaped and every control
/// character written with JSON's own escapes, so that the text holds
/// exactly the scalars it was given.
package enum JSONText {
    package static func append(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": bytes += Array(#"\""#.utf8)
            case "\\": bytes += Array(#"\\"#.utf8)
            case "\n": bytes += Array(#"\n"#.utf8)
            case "\r": bytes += Array(#"\r"#.utf8)
            case "\t": bytes += Array(#"\t"#.utf8)
            case "\u{8}": bytes += Array(#"\b"#.utf8)
            case "\u{C}": bytes += Array(#"\f"#.utf8)
            default:
                if scalar.isControlCharacter {
                    let hex = String(scalar.value, radix: 16)
                    bytes += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                } else {
                    UTF8.encode(scalar) { bytes.append($0) }
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension ManifestEntry {
    /// The entry as one compact JSON object, with the keys and escapes of
    /// manifest files (`docs/manifest-format.md`).
    ///
    /// - Returns: The object's UTF-8 bytes, without a newline.
    public func encodedAsJSON() -> Data {
        var text = ManifestText()
        ManifestJSONFields.appendEntry(self, to: &text)
        return Data(text.bytes)
    }
}
