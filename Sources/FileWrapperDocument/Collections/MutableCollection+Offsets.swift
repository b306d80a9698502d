import Foundation

extension MutableCollection {
    /// Moves the elements at the offsets `source` to just before the
    /// element at offset `destination` (in `0...count`), keeping their
    /// order: SwiftUI's `move(fromOffsets:toOffset:)`, which a list's
    /// `onMove` calls. Of the other elements, those before `destination`
    /// move toward the start, those at or after it toward the end.
    ///
    /// - Parameters:
    ///   - source: The offsets of the elements to move.
    ///   - destination: The offset to move them before, in `0...count`;
    ///     another is a programmer error.
    public mutating func move(fromOffsets source: IndexSet, toOffset destination: Int) {
        precondition(destination >= 0 && destination <= count, "move(fromOffsets:toOffset:): offset \(destination) is outside 0...\(count)")
        let target = index(startIndex, offsetBy: destination)
        moveSubranges(subranges(atOffsets: source), to: target)
    }

    /// The indices at `offsets`, as the ranges the standard library's
    /// subrange operations take. An offset outside the collection is a
    /// programmer error, as in SwiftUI.
    func subranges(atOffsets offsets: IndexSet) -> RangeSet<Index> {
        var ranges = RangeSet<Index>()
        for range in offsets.rangeView {
            precondition(range.lowerBound >= 0 && range.upperBound <= count,
                         "offsets \(range.lowerBound)..<\(range.upperBound) are outside a collection of \(count) elements")
            let lower = index(startIndex, offsetBy: range.lowerBound)
            ranges.insert(contentsOf: lower..<index(lower, offsetBy: range.count))
        }
        return ranges
    }
}
