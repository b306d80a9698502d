import Foundation

/// How large the tests make what only size proves, from the environment
/// variable `FWK_TEST_SIZES`: `reduced` in CI's sanitizer runs (`make
/// test-asan`, `make test-tsan`), full otherwise (`make test`, `swift test`
/// and the slow tier, `make test-slow`).
///
/// Every test runs in every run; a reduced run only lowers a limit or a
/// count where the full size proves nothing the reduced one does not (a
/// byte limit of 64 MiB refuses a bomb as a limit of 4 GiB does; zip64 at
/// a lowered threshold writes the same records as at 4 GiB; 4 kills of a
/// writer, ``KillHarness/kills(full:)``), or leaves out a comparison no
/// build changes (CorpusTests' with bsdtar's listings), as swift-nio
/// keeps its 4 GB tests and swift-collections its long tests for a tier
/// of their own.
public enum TestSizes {
    /// Whether this run cuts sizes (`FWK_TEST_SIZES=reduced`).
    public static let reduced: Bool = {
        switch ProcessInfo.processInfo.environment["FWK_TEST_SIZES"] {
        case nil, "", "full": return false
        case "reduced": return true
        case let other?: fatalError("FWK_TEST_SIZES is \"full\" or \"reduced\", not \"\(other)\"")
        }
    }()

    /// `full` in a full-size run, `reduced` in a reduced one.
    public static func pick<Value>(full: Value, reduced: Value) -> Value {
        Self.reduced ? reduced : full
    }
}
