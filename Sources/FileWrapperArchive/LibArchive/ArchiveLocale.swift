import Glibc

/// libarchive converts names with the calling thread's locale. A Swift
/// program on Linux starts in the C locale, where libarchive cannot convert
/// a non-ASCII zip name and returns a NULL pathname. Every call into
/// libarchive therefore runs with the thread's locale switched to C.UTF-8
/// (`uselocale`, which affects this thread only) and switched back after.
enum ArchiveLocale {
    /// C.UTF-8's character classification, made once and shared read-only by all threads.
    nonisolated(unsafe) private static let utf8: locale_t? = newlocale(1 << LC_CTYPE, "C.UTF-8", nil)

    /// Runs `body` with this thread's locale set to C.UTF-8.
    static func withUTF8<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let utf8 else { return try body() }
        let previous = uselocale(utf8)
        defer { uselocale(previous) }
        return try body()
    }
}
