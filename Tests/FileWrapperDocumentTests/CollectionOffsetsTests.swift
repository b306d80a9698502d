import FileWrapperDocument
import Testing

/// SwiftUI's `remove(atOffsets:)` and `move(fromOffsets:toOffset:)`,
/// against the examples of SwiftUI's documentation and on a collection
/// whose indices are not its offsets.
@Suite struct CollectionOffsetsTests {
    static let letters = Array("ABcDefgHIJKlmNO")
    static let lowercaseOffsets = IndexSet(letters.indices.filter { letters[$0].isLowercase })

    @Test(arguments: [
        (2, "ABcefglmDHIJKNO"),
        (15, "ABDHIJKNOcefglm"),
        (0, "cefglmABDHIJKNO"),
        (7, "ABDcefglmHIJKNO"),
    ])
    func moveKeepsTheMovedElementsInOrderBeforeTheDestination(destination: Int, expected: String) {
        var letters = Self.letters
        letters.move(fromOffsets: Self.lowercaseOffsets, toOffset: destination)
        #expect(String(letters) == expected)
    }

    @Test func moveOfOneElementDownAndUp() {
        var items = ["a", "b", "c", "d"]
        items.move(fromOffsets: [0], toOffset: 3)
        #expect(items == ["b", "c", "a", "d"], "to offset 3 is before the element that was at 3")
        items.move(fromOffsets: [3], toOffset: 0)
        #expect(items == ["d", "b", "c", "a"])
        items.move(fromOffsets: [], toOffset: 2)
        #expect(items == ["d", "b", "c", "a"])
    }

    @Test func removeTakesOffTheElementsAtTheOffsets() {
        var letters = Self.letters
        letters.remove(atOffsets: Self.lowercaseOffsets)
        #expect(String(letters) == "ABDHIJKNO")
        letters.remove(atOffsets: [0, 8])
        #expect(String(letters) == "BDHIJKN")
        letters.remove(atOffsets: [])
        #expect(String(letters) == "BDHIJKN")
    }

    @Test func offsetsCountFromTheStartOfASlice() {
        let numbers = Array(0..<10)
        var slice = numbers[4...]
        slice.remove(atOffsets: [0, 2])
        #expect(Array(slice) == [5, 7, 8, 9])
        var moved = numbers[6...]
        moved.move(fromOffsets: [3], toOffset: 0)
        #expect(Array(moved) == [9, 6, 7, 8])
    }
}
