import Foundation
import Glibc

/// A point in time to the nanosecond, as Linux file systems keep
/// modification times. `Date` holds a `Double` and cannot round-trip every
/// nanosecond; this can.
public struct FileTimestamp: Hashable, Comparable, Sendable {
    /// Whole seconds since 1970-01-01 00:00:00 UTC.
    public var seconds: Int64
    /// Nanoseconds past `seconds`, from 0 to 999,999,999.
    public var nanoseconds: Int32

    /// The timestamp `seconds` and `nanoseconds` after 1970-01-01 00:00:00 UTC.
    ///
    /// - Parameters:
    ///   - seconds: Whole seconds since 1970-01-01 00:00:00 UTC.
    ///   - nanoseconds: Nanoseconds past `seconds`, from 0 to 999,999,999;
    ///     another value is a programmer error.
    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        precondition((0..<1_000_000_000).contains(nanoseconds), "nanoseconds out of range: \(nanoseconds)")
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The timestamp nearest to `date`.
    ///
    /// - Parameter date: The time, to the precision a `Date` holds.
    public init(_ date: Date) {
        let interval = date.timeIntervalSince1970
        var whole = interval.rounded(.down)
        var fraction = ((interval - whole) * 1e9).rounded()
        if fraction >= 1e9 {
            whole += 1
            fraction -= 1e9
        }
        self.init(seconds: Int64(whole), nanoseconds: Int32(fraction))
    }

    init(_ time: timespec) {
        self.init(seconds: Int64(time.tv_sec), nanoseconds: Int32(time.tv_nsec))
    }

    /// This timestamp as a `Date`, to the precision a `Date` holds.
    public var date: Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    var timespec: Glibc.timespec {
        Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}

/// The owner of a file: user and group IDs.
public struct FileOwner: Hashable, Sendable {
    public var userID: UInt32
    public var groupID: UInt32

    /// The owner `userID` and group `groupID`.
    ///
    /// - Parameters:
    ///   - userID: The user ID.
    ///   - groupID: The group ID.
    public init(userID: UInt32, groupID: UInt32) {
        self.userID = userID
        self.groupID = groupID
    }
}
