extension Array {
    /// `Array(unsafeUninitializedCapacity:initializingWith:)`, but an empty
    /// array, without calling `initializer`, for a capacity of 0. The
    /// standard library's (Swift 6.3) then writes the count 0 into the
    /// storage that every empty array shares, a race between threads that
    /// ThreadSanitizer reports (tested by `EmptyArrayRaceTests`); this is
    /// the one way this package makes an array in place.
    package init<E: Error>(
        raceFreeUninitializedCapacity capacity: Int,
        initializingWith initializer: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws(E) -> Void
    ) throws(E) {
        guard capacity > 0 else {
            self = []
            return
        }
        try self.init(unsafeUninitializedCapacity: capacity, initializingWith: initializer)
    }
}
