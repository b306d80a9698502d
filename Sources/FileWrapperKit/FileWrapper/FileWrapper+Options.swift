extension FileWrapper {
    /// How ``FileWrapper/init(url:options:)`` and ``FileWrapper/read(from:options:)`` read.
    public struct ReadingOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Read every regular file's contents now instead of on first access.
        public static let immediate = ReadingOptions(rawValue: 1 << 0)
        /// Never map a file into memory; read it into a buffer instead.
        /// (Files of 64 KiB and more are otherwise mapped.)
        public static let withoutMapping = ReadingOptions(rawValue: 1 << 1)
    }

    /// How ``FileWrapper/write(to:options:originalContentsURL:)`` writes.
    public struct WritingOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Build the new item beside the destination, flush it to the disk,
        /// then swap it into place: the destination is the old item or the
        /// new one, whole, whenever the process dies.
        public static let atomic = WritingOptions(rawValue: 1 << 0)
        /// After a successful write, set the `filename` of the wrapper and of
        /// every descendant to the name it was written under.
        public static let withNameUpdating = WritingOptions(rawValue: 1 << 1)
    }
}
