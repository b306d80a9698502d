import Foundation
import Glibc
import Testing
import TestSupport
import FileWrapperKit

/// `ManifestDiff` on trees built on disk (and, for what a disk cannot
/// show, such as hard links or coarse times, on manifests built entry by
/// entry): each kind of change, and each rule of its documentation.
@Suite struct ManifestDiffTests {
    /// A fixed time for every entry of the trees, so that only what a test
    /// changes differs: 2026-05-01 10:00:00 UTC.
    static let baseTime = 1_777_629_600

    /// A small document: `index.json`, `Entries/` with three entries,
    /// `Media/photo.jpg`, `Scripts/run.sh` (0755), `Cover -> Media/photo.jpg`,
    /// an empty `Drafts/`; every time set to ``baseTime``.
    static func makeTree(at root: URL) throws {
        try Disk.write("{\"entries\": 3}\n", to: root.appendingPathComponent("index.json"))
        for day in 1...3 {
            try Disk.write("Day \(day) of the journey.\n", to: root.appendingPathComponent("Entries/day\(day).md"))
        }
        try Disk.write(Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }), to: root.appendingPathComponent("Media/photo.jpg"))
        try Disk.write("#!/bin/sh\necho export\n", to: root.appendingPathComponent("Scripts/run.sh"), mode: 0o755)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("Cover").path, withDestinationPath: "Media/photo.jpg")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Drafts"), withIntermediateDirectories: true)
        setTimes(below: root)
    }

    /// Sets the time of every entry below `root`, and of `root`, to ``baseTime``.
    static func setTimes(below root: URL) {
        for path in (try? FileManager.default.subpathsOfDirectory(atPath: root.path)) ?? [] {
            Disk.setModificationTime(root.appendingPathComponent(path), seconds: baseTime, nanoseconds: 0)
        }
        Disk.setModificationTime(root, seconds: baseTime, nanoseconds: 0)
    }

    /// Two copies of the tree, `Old` and `New`; `edit` changes `New`.
    /// Returns the diff from `Old` to `New`.
    static func diff(ignoring: Set<ManifestDiff.Field> = [], _ edit: (URL) throws -> Void) throws -> ManifestDiff {
        let directory = try TemporaryDirectory()
        let old = directory.appending("Old"), new = directory.appending("New")
        try makeTree(at: old)
        try makeTree(at: new)
        try edit(new)
        return try ManifestDiff(from: Manifest(contentsOf: old), to: Manifest(contentsOf: new), ignoring: ignoring)
    }

    /// Each change as `kind path[ -> new path]`, for short expectations.
    static func summary(_ diff: ManifestDiff) -> [String] {
        diff.changes.map { change in
            let path = change.path.isEmpty ? "." : String(decoding: change.path, as: UTF8.self)
            let destination = change.kind == .moved ? " -> " + String(decoding: change.new!.path, as: UTF8.self) : ""
            return "\(change.kind.rawValue) \(path)\(destination)"
        }
    }

    private static func touch(_ url: URL, minutes: Int) {
        Disk.setModificationTime(url, seconds: baseTime + 60 * minutes, nanoseconds: 0)
    }

    // MARK: Each kind of change

    @Test func identicalTreesHaveNoChanges() throws {
        let diff = try Self.diff { _ in }
        #expect(diff.isEmpty)
    }

    @Test func anAddedFileIsReportedWithItsEntry() throws {
        let diff = try Self.diff { new in
            try Disk.write("Day 4.\n", to: new.appendingPathComponent("Entries/day4.md"))
            Self.touch(new.appendingPathComponent("Entries/day4.md"), minutes: 0)
        }
        #expect(Self.summary(diff) == ["added Entries/day4.md"])
        #expect(diff.changes[0].new?.size == 7)
        #expect(diff.changes[0].old == nil)
    }

    @Test func anAddedDirectoryIsOneChangeWithItsEntryCount() throws {
        let diff = try Self.diff { new in
            for name in ["a", "b", "c/d"] {
                try Disk.write("new \(name)\n", to: new.appendingPathComponent("Notes/\(name).txt"))
            }
        }
        #expect(Self.summary(diff) == ["added Notes"])
        // a.txt, b.txt, c/ and c/d.txt.
        #expect(diff.changes[0].entriesBelow == 4)
    }

    @Test func aRemovedDirectoryIsOneChangeWithItsEntryCount() throws {
        let diff = try Self.diff { new in
            try FileManager.default.removeItem(at: new.appendingPathComponent("Entries"))
        }
        #expect(Self.summary(diff) == ["removed Entries"])
        #expect(diff.changes[0].entriesBelow == 3)
        #expect(diff.changes[0].new == nil)
    }

    @Test func changedContentsCarryBothSizes() throws {
        let diff = try Self.diff { new in
            let file = new.appendingPathComponent("index.json")
            try Disk.write("{\"entries\": 4}\n\n", to: file)
            Self.touch(file, minutes: 5)
        }
        #expect(Self.summary(diff) == ["contents index.json"])
        #expect(diff.changes[0].old?.size == 15)
        #expect(diff.changes[0].new?.size == 16)
        // The new time goes with the new contents, on the same change.
        #expect(diff.changes[0].fields == [.mtime])
    }

    @Test func aNewSymlinkTargetIsAContentsChange() throws {
        let diff = try Self.diff { new in
            let cover = new.appendingPathComponent("Cover")
            try FileManager.default.removeItem(at: cover)
            try FileManager.default.createSymbolicLink(atPath: cover.path, withDestinationPath: "Entries/day1.md")
            Self.touch(cover, minutes: 0)
            Self.touch(new, minutes: 0)
        }
        #expect(Self.summary(diff) == ["contents Cover"])
        #expect(diff.changes[0].new?.linkTarget == Array("Entries/day1.md".utf8))
    }

    @Test func aFileReplacedByASymlinkIsAKindChange() throws {
        let diff = try Self.diff { new in
            let file = new.appendingPathComponent("index.json")
            try FileManager.default.removeItem(at: file)
            try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "Entries/day1.md")
        }
        // The root's new time follows from the replacement and is not reported.
        #expect(Self.summary(diff) == ["kind index.json"])
        #expect(diff.changes[0].old?.kind == .file)
        #expect(diff.changes[0].new?.kind == .symlink)
        #expect(diff.changes[0].fields.isEmpty)
    }

    @Test func aDirectoryReplacedByAFileCountsWhatWasBelowIt() throws {
        let diff = try Self.diff { new in
            try FileManager.default.removeItem(at: new.appendingPathComponent("Entries"))
            try Disk.write("flat\n", to: new.appendingPathComponent("Entries"))
        }
        #expect(Self.summary(diff) == ["kind Entries"])
        #expect(diff.changes[0].entriesBelow == 3)
    }

    @Test func metadataChangesNameEachField() throws {
        let diff = try Self.diff { new in
            let script = new.appendingPathComponent("Scripts/run.sh")
            chmod(script.path, 0o700)
            Self.touch(script, minutes: 3)
            try Disk.setXattr("user.tag", "blue", on: new.appendingPathComponent("index.json"))
        }
        #expect(Self.summary(diff) == ["metadata Scripts/run.sh", "metadata index.json"])
        #expect(diff.changes[0].fields == [.mode, .mtime])
        #expect(diff.changes[0].old?.permissions == 0o755)
        #expect(diff.changes[0].new?.permissions == 0o700)
        #expect(diff.changes[1].fields == [.xattrs])
        #expect(diff.changes[1].extendedAttributeChanges.added == ["user.tag"])
    }

    @Test func ignoredFieldsAreNotCompared() throws {
        let diff = try Self.diff(ignoring: [.mtime, .xattrs]) { new in
            let script = new.appendingPathComponent("Scripts/run.sh")
            chmod(script.path, 0o700)
            Self.touch(script, minutes: 3)
            try Disk.setXattr("user.tag", "blue", on: new.appendingPathComponent("index.json"))
        }
        #expect(Self.summary(diff) == ["metadata Scripts/run.sh"])
        #expect(diff.changes[0].fields == [.mode])
        #expect(diff.ignoredFields == [.mtime, .xattrs])
    }

    // MARK: Moves

    @Test func aRenamedFileIsAMove() throws {
        let diff = try Self.diff { new in
            try FileManager.default.moveItem(at: new.appendingPathComponent("Entries/day2.md"), to: new.appendingPathComponent("Entries/Sintra.md"))
        }
        #expect(Self.summary(diff) == ["moved Entries/day2.md -> Entries/Sintra.md"])
    }

    @Test func aMoveCarriesItsMetadataChanges() throws {
        let diff = try Self.diff { new in
            let moved = new.appendingPathComponent("Media/cover.jpg")
            try FileManager.default.moveItem(at: new.appendingPathComponent("Media/photo.jpg"), to: moved)
            chmod(moved.path, 0o600)
        }
        // Cover still names Media/photo.jpg: its target, its contents, did not change.
        #expect(Self.summary(diff) == ["moved Media/photo.jpg -> Media/cover.jpg"])
        #expect(diff.changes[0].fields == [.mode])
    }

    @Test func aRenamedDirectoryIsOneMoveAndItsMetadataChangesFollowIt() throws {
        let diff = try Self.diff { new in
            try FileManager.default.moveItem(at: new.appendingPathComponent("Entries"), to: new.appendingPathComponent("Days"))
            chmod(new.appendingPathComponent("Days/day3.md").path, 0o600)
        }
        #expect(Self.summary(diff) == ["moved Entries -> Days", "metadata Days/day3.md"])
        #expect(diff.changes[0].entriesBelow == 3)
        #expect(diff.changes[1].fields == [.mode])
    }

    @Test func aMovedSymlinkKeepsItsTarget() throws {
        let diff = try Self.diff { new in
            try FileManager.default.moveItem(at: new.appendingPathComponent("Cover"), to: new.appendingPathComponent("Media/Cover"))
        }
        #expect(Self.summary(diff) == ["moved Cover -> Media/Cover"])
    }

    @Test func emptyFilesAndDirectoriesNeverMove() throws {
        let diff = try Self.diff { new in
            try FileManager.default.moveItem(at: new.appendingPathComponent("Drafts"), to: new.appendingPathComponent("Sketches"))
        }
        #expect(Self.summary(diff) == ["removed Drafts", "added Sketches"])
    }

    @Test func aFileMovedOutOfARemovedDirectoryIsAMoveAndNotCountedInTheRemoval() throws {
        let diff = try Self.diff { new in
            try FileManager.default.moveItem(at: new.appendingPathComponent("Entries/day1.md"), to: new.appendingPathComponent("day1.md"))
            try FileManager.default.removeItem(at: new.appendingPathComponent("Entries"))
        }
        #expect(Self.summary(diff) == ["removed Entries", "moved Entries/day1.md -> day1.md"])
        #expect(diff.changes[0].entriesBelow == 2)
    }

    @Test func severalCandidatesPairByNameOrStayAddedAndRemoved() throws {
        // Five files alike: a/x.txt and a/y.txt before; a/keep.txt, b/x.txt and b/z.txt after.
        let same = "the same bytes\n"
        let directory = try TemporaryDirectory()
        let old = directory.appending("Old"), new = directory.appending("New")
        try Disk.write(same, to: old.appendingPathComponent("a/x.txt"))
        try Disk.write(same, to: old.appendingPathComponent("a/y.txt"))
        try Disk.write(same, to: new.appendingPathComponent("a/keep.txt"))
        try Disk.write(same, to: new.appendingPathComponent("b/x.txt"))
        try Disk.write(same, to: new.appendingPathComponent("b/z.txt"))
        Self.setTimes(below: old)
        Self.setTimes(below: new)
        let pairs = try ManifestDiff(from: Manifest(contentsOf: old), to: Manifest(contentsOf: new))
        #expect(Self.summary(pairs) == ["added a/keep.txt", "moved a/x.txt -> b/x.txt", "removed a/y.txt", "added b"])
        // b/ holds z.txt only: x.txt came from a/.
        #expect(pairs.changes[3].entriesBelow == 1)
    }

    // MARK: Rules

    @Test func identicalSubtreesAreSkippedWithoutLookingInside() throws {
        let directory = try TemporaryDirectory()
        let old = directory.appending("Old"), new = directory.appending("New")
        for root in [old, new] {
            for folder in 0..<10 {
                for file in 0..<20 {
                    try Disk.write("folder \(folder) file \(file)\n", to: root.appendingPathComponent("f\(folder)/\(file).txt"))
                }
            }
            Self.setTimes(below: root)
        }
        let before = try Manifest(contentsOf: old)
        let identical = try ManifestDiff(from: before, to: Manifest(contentsOf: new))
        #expect(identical.isEmpty)
        // The roots agree: nothing below them is compared.
        #expect(identical.comparedEntries == 1)

        try Disk.write("changed\n", to: new.appendingPathComponent("f7/3.txt"))
        Self.setTimes(below: new)
        let oneChange = try ManifestDiff(from: before, to: Manifest(contentsOf: new))
        #expect(Self.summary(oneChange) == ["contents f7/3.txt"])
        // The root, its 10 folders, and the 20 files of f7 only: 31 of 211 entries.
        #expect(oneChange.comparedEntries == 1 + 10 + 20)
    }

    @Test func aDirectoryTimeIsNotReportedWhenEntriesCameOrWentInside() throws {
        let diff = try Self.diff { new in
            try Disk.write("Day 4.\n", to: new.appendingPathComponent("Entries/day4.md"))
            try FileManager.default.removeItem(at: new.appendingPathComponent("Scripts/run.sh"))
            try FileManager.default.moveItem(at: new.appendingPathComponent("Media/photo.jpg"), to: new.appendingPathComponent("photo.jpg"))
            for path in ["Entries/day4.md", "Entries", "Scripts", "Media", ""] {
                Self.touch(new.appendingPathComponent(path), minutes: 9)
            }
        }
        #expect(Self.summary(diff) == ["added Entries/day4.md", "moved Media/photo.jpg -> photo.jpg", "removed Scripts/run.sh"])
    }

    @Test func aDirectoryTouchedAloneIsReported() throws {
        let diff = try Self.diff { new in
            Self.touch(new.appendingPathComponent("Entries"), minutes: 1)
        }
        #expect(Self.summary(diff) == ["metadata Entries"])
        #expect(diff.changes[0].fields == [.mtime])
    }

    @Test func changesAreInPathOrderAndMovesAtTheirOldPath() throws {
        let diff = try Self.diff { new in
            try Disk.write("a\n", to: new.appendingPathComponent("A.txt"))
            try FileManager.default.moveItem(at: new.appendingPathComponent("Scripts/run.sh"), to: new.appendingPathComponent("Aardvark.sh"))
            try Disk.write("z\n", to: new.appendingPathComponent("Entries/zz.md"))
            for path in ["A.txt", "Entries/zz.md"] {
                Self.touch(new.appendingPathComponent(path), minutes: 0)
            }
        }
        #expect(Self.summary(diff) == ["added A.txt", "added Entries/zz.md", "moved Scripts/run.sh -> Aardvark.sh"])
    }

    @Test func manifestsWithoutContentDigestsCannotBeCompared() throws {
        let directory = try TemporaryDirectory()
        let tree = directory.appending("Tree")
        try Self.makeTree(at: tree)
        let hashed = try Manifest(contentsOf: tree)
        let listing = try Manifest(contentsOf: tree, hashingContents: false)
        let error = #expect(throws: ManifestError.self) { try ManifestDiff(from: hashed, to: listing) }
        #expect(error?.file == tree.path)
        #expect(error?.message.contains("no content digests") == true)
    }

    // MARK: Rules shown on manifests built entry by entry

    static let digest = SHA256Digest.of(Array("contents".utf8))

    static func manifest(format: String? = nil, _ entries: [ManifestEntry]) throws -> Manifest {
        var builder = ManifestBuilder(source: Manifest.Source(kind: format == nil ? .bundle : .archive, name: "test", format: format))
        for entry in entries {
            try builder.add(entry)
        }
        return try builder.finish()
    }

    static func file(_ path: String, modified: FileTimestamp? = nil, owner: FileOwner? = nil) -> ManifestEntry {
        ManifestEntry(path: Array(path.utf8), kind: .file, size: 8, permissions: 0o644, modified: modified, owner: owner, contentDigest: digest)
    }

    @Test func fieldsOneSideDoesNotKnowAreNeverAChange() throws {
        let known = try Self.manifest([Self.file("a", modified: FileTimestamp(seconds: 100), owner: FileOwner(userID: 501, groupID: 20))])
        var unknown = Self.file("a")
        unknown.permissions = nil
        let diff = try ManifestDiff(from: known, to: Self.manifest([unknown]))
        #expect(diff.isEmpty)
    }

    @Test func timesAreComparedAtTheCoarserResolution() throws {
        // A bundle's nanosecond time against a zip's DOS time (even seconds, 2 s).
        let bundle = try Self.manifest([Self.file("a", modified: FileTimestamp(seconds: 1_777_629_601, nanoseconds: 500_000_000))])
        let zip = try Self.manifest(format: "ZIP 2.0 (deflation)", [Self.file("a", modified: FileTimestamp(seconds: 1_777_629_600))])
        #expect(zip.timeResolution == 2_000_000_000)
        let same = try ManifestDiff(from: bundle, to: zip)
        #expect(same.isEmpty)
        #expect(same.timeResolution == 2_000_000_000)

        let later = try Self.manifest(format: "ZIP 2.0 (deflation)", [Self.file("a", modified: FileTimestamp(seconds: 1_777_629_602))])
        #expect(try ManifestDiff(from: bundle, to: later).changes.map(\.fields) == [[.mtime]])
    }

    @Test func aHardLinkComparesAsTheFileItNames() throws {
        let files = try Self.manifest([Self.file("a"), Self.file("b")])
        var link = Self.file("b")
        link.kind = .hardLink
        link.linkTarget = Array("a".utf8)
        let linked = try Self.manifest([Self.file("a"), link])
        #expect(try ManifestDiff(from: files, to: linked).isEmpty)

        link.contentDigest = SHA256Digest.of(Array("other".utf8))
        let changed = try ManifestDiff(from: files, to: Self.manifest([Self.file("a"), link]))
        #expect(changed.changes.map(\.kind) == [.contents])
    }

    @Test func symlinkPermissionsAreNotCompared() throws {
        func link(_ permissions: UInt16) -> ManifestEntry {
            ManifestEntry(path: Array("l".utf8), kind: .symlink, permissions: permissions, linkTarget: Array("a".utf8))
        }
        #expect(try ManifestDiff(from: Self.manifest([link(0o777)]), to: Self.manifest([link(0o755)])).isEmpty)
    }
}
