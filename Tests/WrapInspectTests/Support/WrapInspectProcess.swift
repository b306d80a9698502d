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
