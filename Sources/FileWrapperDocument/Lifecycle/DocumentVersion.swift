import FileWrapperKit
import Foundation

/// Which versions of its document a ``DocumentController`` keeps
/// (``DocumentController/setVersionPolicy(_:)``), as `NSFileVersion` keeps
/// a document's: off by default. With it on, every save in place keeps the
/// version it replaces, and versions beyond the count or older than the
/// age are removed after each save (docs/versions.md).
public struct DocumentVersionPolicy: Sendable, Hashable {
    /// Whether saves keep versions.
    public let keepsVersions: Bool
    /// How many versions to keep at most; nil for no limit.
    public let maximumCount: Int?
    /// How old a version may grow, in seconds since the save that kept it;
    /// nil for no limit.
    public let maximumAge: TimeInterval?

    /// Keeps no versions: saves replace the document and remove what they
    /// replaced. Versions kept earlier stay.
    public static let off = DocumentVersionPolicy(keepsVersions: false, maximumCount: nil, maximumAge: nil)

    /// Keeps the version each save replaces, up to `count` versions and up
    /// to `age` seconds old; with neither, every version for ever.
    ///
    /// - Parameters:
    ///   - count: How many versions to keep at most; a count below 1 is 1
    ///     (the version the save just kept).
    ///   - age: How old, in seconds, a version may grow.
    /// - Returns: The policy.
    public static func keeping(count: Int? = nil, age: TimeInterval? = nil) -> DocumentVersionPolicy {
        DocumentVersionPolicy(keepsVersions: true, maximumCount: count.map { max(1, $0) }, maximumAge: age.map { max(0, $0) })
    }

    private init(keepsVersions: Bool, maximumCount: Int?, maximumAge: TimeInterval?) {
        self.keepsVersions = keepsVersions
        self.maximumCount = maximumCount
        self.maximumAge = maximumAge
    }

    /// Removes what this policy does not keep of the versions of the document at `url`.
    func prune(ofDocumentAt url: URL) {
        guard keepsVersions else { return }
        // An age beyond a century is no limit (and no overflow).
        let oldest = maximumAge.flatMap { $0 < 3e9 ? VersionStore.currentNanoseconds() - Int64($0 * 1e9) : nil }
        VersionStore.prune(ofDocumentAt: url.path, keepingAtMost: maximumCount, keptSince: oldest)
    }
}

/// A version of a document that a save kept (``DocumentController/versions()``):
/// the document as it was until that save.
public struct DocumentVersion: Sendable, Hashable, Identifiable {
    /// The version's name in the versions folder, the UTC time of the save
    /// that kept it (`20261202T133316.123456789Z`): names sort by time.
    public let id: String
    /// When the save that kept it replaced it: the document was this
    /// version until then.
    public let date: Date
    /// The bytes on disk only this version holds (blocks of files no
    /// other version and not the document share, and its folders): what
    /// removing it would free.
    public let size: Int64
    /// Where it lives, in the versions folder beside the document. Read it,
    /// never write it: its files are hard links shared with other versions
    /// and with the document.
    public let fileURL: URL

    init(_ entry: VersionStore.Entry, size: Int64) {
        id = entry.id
        date = entry.date
        self.size = size
        fileURL = URL(fileURLWithPath: entry.path)
    }
}
