import FileWrapperKit
import Foundation

/// One libFuzzer input: the bytes as a manifest file (JSON, JSON Lines or
/// mtree, told apart by their start). Errors are fine; a crash, hang or
/// leak is a finding. When the bytes decode, the manifest is encoded in
/// every format and decoded again, and must come back (a trap otherwise):
/// JSON and JSON Lines hold everything, so entries, digests and source are
/// equal; mtree holds what ``MtreeEntry`` keeps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let manifest = try? Manifest(decoding: Data(bytes: start, count: size), name: "fuzz") else { return 0 }
    for format in ManifestFileFormat.allCases {
        let again: Manifest
        do {
            again = try Manifest(decoding: manifest.encoded(as: format), name: "again")
        } catch {
            fatalError("\(format): what we encoded does not decode: \(error)")
        }
        switch format {
        case .json, .jsonLines:
            guard again.entries == manifest.entries, again.source == manifest.source else {
                fatalError("\(format): the manifest changed in a round trip")
            }
        case .mtree:
            guard again.entries.compactMap({ MtreeEntry($0, in: again) }) == manifest.entries.compactMap({ MtreeEntry($0, in: manifest) }) else {
                fatalError("mtree: what mtree holds changed in a round trip")
            }
            // Devices, FIFOs and sockets are left out, and with them their
            // place in the directories' digests.
            if !manifest.entries.contains(where: { $0.kind == .other }) {
                guard again.treeDigest == manifest.treeDigest else { fatalError("mtree: the tree digest changed in a round trip") }
            }
        }
    }
    return 0
}

/// What mtree keeps of an entry (`docs/manifest-format.md`): a hard link
/// becomes a file with its own size and digest, or else those of the file
/// it names,
/// extended attributes are left out, each type keeps only its own fields,
/// and devices, FIFOs and sockets are left out (`nil`).
struct MtreeEntry: Equatable {
    var path: [UInt8]
    var kind: ManifestEntry.Kind
    var size: Int64?
    var permissions: UInt16?
    var modified: FileTimestamp?
    var owner: FileOwner?
    var linkTarget: [UInt8]?
    var contentDigest: SHA256Digest?

    init?(_ entry: ManifestEntry, in manifest: Manifest) {
        guard entry.kind != .other else { return nil }
        path = entry.path
        kind = entry.contentKind
        permissions = entry.permissions
        modified = entry.modified
        owner = entry.owner
        if kind == .file {
            let named = entry.kind == .hardLink
                ? entry.linkTarget.flatMap { manifest.entry(at: ManifestPath.normalized($0) ?? $0) } : nil
            size = entry.size ?? named?.size
            contentDigest = entry.contentDigest ?? named?.contentDigest
        }
        if kind == .symlink { linkTarget = entry.linkTarget }
    }
}
