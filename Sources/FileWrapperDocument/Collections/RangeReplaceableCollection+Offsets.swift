import Foundation

extension RangeReplaceableCollection where Self: MutableCollection {
    /// Removes the elements at `offsets`: SwiftUI's `remove(atOffsets:)`,
    /// which a list's `onDelete` calls. The others keep their order.
    ///
    /// - Parameter offsets: The offsets of the elements to remove.
    public mutating func remove(atOffsets offsets: IndexSet) {
        removeSubranges(subranges(atOffsets: offsets))
    }
}
