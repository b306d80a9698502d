import Foundation

/// The files a manifest is written to and read back from, specified in
/// `docs/manifest-format.md`.
public enum ManifestFileFormat: String, CaseIterable, Sendable {
    /// One JSON document with a stable key order, an entry a line.
    case json
    /// A header line, then one JSON object a line, for streaming.
    case jsonLines = "jsonl"
    /// mtree as libarchive reads it (`bsdtar -cf - @manifest.mtree`).
    case mtree

    /// The format of a manifest file from its first bytes (64 are
    /// enough), or `nil` for anything else. Only our own JSON files count
    /// (a document whose first key is `"format"` with the value
    /// `"fwk-manifest"` or `"fwk-manifest-lines"`), so an ordinary JSON
    /// document is not taken for a manifest; any file that starts with
    /// `#mtree` is mtree.
    ///
    /// - Parameter head: The file's first bytes.
    /// - Returns: The format; nil when the bytes are not a manifest file.
    public static func detect(_ head: [UInt8]) -> ManifestFileFormat? {
        if head.starts(with: "#mtree".utf8) { return .mtree }
        var scanner = HeadScanner(bytes: head)
        guard scanner.skip("{"), scanner.skip("\"format\""), scanner.skip(":") else { return nil }
        if scanner.skip("\"fwk-manifest\"") { return .json }
        if scanner.skip("\"fwk-manifest-lines\"") { return .jsonLines }
        return nil
    }

    /// Matches tokens at the start of a file, with JSON whitespace between.
    private struct HeadScanner {
        let bytes: [UInt8]
        var position = 0

        mutating func skip(_ token: String) -> Bool {
            while position < bytes.count, ManifestFileSyntax.isSpace(bytes[position]) {
                position += 1
            }
            guard bytes[position...].starts(with: token.utf8) else { return false }
            position += token.utf8.count
            return true
        }
    }
}

extension Manifest {
    /// The manifest as a file in `format`.
    ///
    /// - Parameter format: The file format.
    /// - Returns: The file's bytes.
    public func encoded(as format: ManifestFileFormat) -> Data {
        var data = Data()
        write(as: format) { data.append(contentsOf: $0) }
        return data
    }

    /// Writes the manifest as a file in `format`, handing its bytes to
    /// `deliver` in order, in pieces of about 64 KiB: the file is never
    /// whole in memory.
    package func write<Failure: Error>(
        as format: ManifestFileFormat, to deliver: (UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        switch format {
        case .json: try writeJSON(to: deliver)
        case .jsonLines: try writeJSONLines(to: deliver)
        case .mtree: try writeMtree(to: deliver)
        }
    }

    /// The manifest in a file that ``encoded(as:)`` wrote (or, for mtree,
    /// another tool), its format detected from the bytes; `name` names the
    /// file in errors. Every entry goes through ``ManifestBuilder``, so the
    /// digests are computed afresh; digests the file records must agree.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - name: The file's name in errors.
    ///   - limits: What the file may declare.
    /// - Throws: ``ManifestError`` naming the file and the line or entry
    ///   for anything malformed, and for more than `limits` allow (naming
    ///   the limit).
    public init(decoding data: Data, name: String, limits: ManifestReadLimits = .reading) throws {
        switch ManifestFileFormat.detect(Array(data.prefix(64))) {
        case .json: self = try Manifest(json: data, name: name, limits: limits)
        case .jsonLines: self = try Manifest(jsonLines: data, name: name, limits: limits)
        case .mtree: self = try Manifest(mtree: [UInt8](data), name: name, limits: limits)
        case nil:
            throw ManifestError(
                file: name, message: "not a manifest file: it starts neither with {\"format\": \"fwk-manifest\" nor with #mtree")
        }
    }
}
