import Foundation
import TestSupport

/// Runs the built `wrapinspect` as a user would (``BuiltProgram``).
enum WrapInspectProcess {
    /// Runs `wrapinspect arguments...` in `directory` and waits for it.
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> CommandResult {
        try BuiltProgram.run("wrapinspect", arguments, in: directory, environment: environment)
    }

    /// The built `wrapinspect`, for tests that start it another way.
    static var executableURL: URL? { BuiltProgram.url(of: "wrapinspect") }
}

extension WrapInspectProcess {
    struct NotBuilt: Error {}

    /// Runs `wrapinspect` as ``run(_:in:)`` does, but bound by permission
    /// bits: as root, under `setpriv` with `CAP_DAC_OVERRIDE` and
    /// `CAP_DAC_READ_SEARCH` dropped from its bounding set, so that a
    /// folder of mode 000 is as closed to it as to any other user (root
    /// ignores permission bits otherwise). It stays root, so every path
    /// the test made is still its own.
    static func runBoundByPermissions(_ arguments: [String], in directory: URL) throws -> CommandResult {
        guard geteuid() == 0 else { return try run(arguments, in: directory) }
        guard let wrapinspect = executableURL else { throw NotBuilt() }
        return try ChildProcess.run(
            "/usr/bin/setpriv", ["--bounding-set", "-dac_override,-dac_read_search", wrapinspect.path] + arguments, in: directory)
    }
}
