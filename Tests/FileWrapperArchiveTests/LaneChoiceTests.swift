@testable import FileWrapperArchive
import Testing

/// Which unpack worker makes each small file: one directory's files stay in
/// one lane (two threads creating files in one directory take turns on its
/// lock), a new directory goes to the lane with the fewest files waiting,
/// and a large directory is shared out in runs.
@Suite struct LaneChoiceTests {
    final class Folder {}

    @Test func aFoldersFilesStayInOneLaneAndTheNextFolderTakesTheOther() {
        var choice = LaneChoice()
        let first = Folder(), second = Folder()
        let lanes = (0..<10).map { _ in choice.lane(for: ObjectIdentifier(first), queued: [0, 0]) }
        #expect(Set(lanes).count == 1)
        // On a tie, another lane than the last.
        let next = choice.lane(for: ObjectIdentifier(second), queued: [0, 0])
        #expect(next != lanes[0])
    }

    @Test func aNewFolderGoesToTheLaneWithTheFewestFilesWaiting() {
        var choice = LaneChoice()
        let folders = (0..<3).map { _ in Folder() }
        _ = choice.lane(for: ObjectIdentifier(folders[0]), queued: [0, 0, 0])
        #expect(choice.lane(for: ObjectIdentifier(folders[1]), queued: [5, 9, 2]) == 2)
        #expect(choice.lane(for: ObjectIdentifier(folders[2]), queued: [1, 9, 7]) == 0)
    }

    @Test func aLargeFolderIsSharedOutInRuns() {
        var choice = LaneChoice()
        let folder = Folder()
        let lanes = (0..<(3 * LaneChoice.runLength)).map { _ in choice.lane(for: ObjectIdentifier(folder), queued: [0, 0]) }
        let runs = stride(from: 0, to: lanes.count, by: LaneChoice.runLength).map { Set(lanes[$0..<($0 + LaneChoice.runLength)]) }
        #expect(runs.allSatisfy { $0.count == 1 })
        #expect(runs[0] != runs[1] && runs[1] != runs[2])
    }
}
