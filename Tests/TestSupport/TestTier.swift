import Foundation
import Testing

/// Which tier of the suite runs, from `FWK_TEST_TIER`: `fast` for `make
/// test-fast`, the tests that run in the test process alone (no child
/// process, so no `wrapinspect`, bsdtar, 7z, Python or kills), everything
/// otherwise. A test that starts a process in the fast tier fails at its
/// start (``ChildProcess``), naming the trait its suite lacks.
public enum TestTier {
    /// Whether only the in-process tests run (`FWK_TEST_TIER=fast`).
    public static let fast: Bool = {
        switch ProcessInfo.processInfo.environment["FWK_TEST_TIER"] {
        case nil, "", "all": return false
        case "fast": return true
        case let other?: fatalError("FWK_TEST_TIER is \"all\" or \"fast\", not \"\(other)\"")
        }
    }()
}

extension Trait where Self == ConditionTrait {
    /// For a suite or test that starts other processes: left out of the
    /// fast tier (`make test-fast`).
    public static var startsProcesses: Self {
        .enabled(if: !TestTier.fast, "starts other processes: not in the fast tier")
    }
}
