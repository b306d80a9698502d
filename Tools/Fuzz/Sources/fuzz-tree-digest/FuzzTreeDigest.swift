import FileWrapperKit

/// One libFuzzer input: the bytes decoded into a few entries (``EntryDecoder``)
/// and given to ``ManifestBuilder`` in their order, reversed, and rotated.
/// A trap marks a broken invariant:
/// - the order does not matter: all throw, or all give the same entries
///   with the same tree and metadata digests;
/// - building is deterministic (the first order twice gives one manifest);
/// - changing one byte of a file's contents changes the tree digest.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var decoder = EntryDecoder(bytes: UnsafeBufferPointer(start: start, count: size))
    let (entries, contents) = decoder.entries()
    let rotation = entries.isEmpty ? 0 : Int(decoder.byte()) % entries.count
    let orders = [entries, entries, Array(entries.reversed()), Array(entries[rotation...] + entries[..<rotation])]
    let results = orders.map { order in Result { () throws(ManifestError) in try build(order) } }
    let manifests = results.compactMap { try? $0.get() }
    guard manifests.isEmpty || manifests.count == results.count else {
        fatalError("the order of the entries decides whether the tree is accepted")
    }
    guard let first = manifests.first else { return 0 }
    for manifest in manifests.dropFirst() {
        guard manifest.entries == first.entries, manifest.treeDigest == first.treeDigest,
              manifest.metadataDigest == first.metadataDigest else {
            fatalError("the order of the entries changes the manifest")
        }
    }
    // One content byte changed, in the first file that has contents.
    guard let index = contents.firstIndex(where: { !$0.isEmpty }), let tree = first.treeDigest else { return 0 }
    var changed = entries
    var bytes = contents[index]
    bytes[0] &+= 1
    changed[index].contentDigest = SHA256Digest.of(bytes)
    guard let other = try? build(changed) else {
        fatalError("changing a file's contents made the tree unacceptable")
    }
    guard other.treeDigest != tree else { fatalError("changing a file's contents kept the tree digest") }
    return 0
}

/// The manifest of `entries`, added in their order.
func build(_ entries: [ManifestEntry]) throws(ManifestError) -> Manifest {
    var builder = ManifestBuilder(source: Manifest.Source(kind: .fileWrapper, name: "fuzz"))
    for entry in entries {
        try builder.add(entry)
    }
    return try builder.finish()
}

/// Reads entries from fuzzer bytes; missing bytes read as zero, so every
/// input decodes. An entry is: kind, path (tokens from a small alphabet
/// with `/`, `.`, `..`, and names that are not UTF-8 or are canonically
/// equivalent), permissions, and per kind a link target or contents.
struct EntryDecoder {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    static let tokens: [[UInt8]] = [
        Array("a".utf8), Array("b".utf8), Array("/".utf8), Array(".".utf8), Array("..".utf8),
        [0xFF], [0xC3], Array("\u{E9}".utf8), Array("e\u{301}".utf8), Array("c".utf8),
    ]

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    /// Up to 8 entries, and each entry's contents (empty unless a file).
    mutating func entries() -> ([ManifestEntry], [[UInt8]]) {
        var entries: [ManifestEntry] = []
        var contents: [[UInt8]] = []
        for _ in 0..<(byte() % 9) {
            var path: [UInt8] = []
            for _ in 0..<(byte() % 7) {
                path += Self.tokens[Int(byte()) % Self.tokens.count]
            }
            let kinds: [ManifestEntry.Kind] = [.file, .directory, .symlink, .hardLink, .other]
            var entry = ManifestEntry(path: path, kind: kinds[Int(byte()) % kinds.count], permissions: UInt16(byte() & 0o7) << 6 | 0o44)
            var content: [UInt8] = []
            switch entry.kind {
            case .file, .hardLink:
                for _ in 0..<(byte() % 5) { content.append(byte()) }
                entry.size = Int64(content.count)
                entry.contentDigest = SHA256Digest.of(content)
            case .symlink:
                entry.linkTarget = Self.tokens[Int(byte()) % Self.tokens.count]
            case .directory, .other:
                break
            }
            entries.append(entry)
            contents.append(content)
        }
        return (entries, contents)
    }
}
