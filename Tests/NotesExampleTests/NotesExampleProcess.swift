import Foundation
import Testing
import TestSupport

/// Runs the built `notes-example` as a user would (``BuiltProgram``).
enum NotesExampleProcess {
    /// Runs `notes-example arguments...` in `directory` and waits for it.
    static func run(_ arguments: [String], in directory: URL) throws -> CommandResult {
        let result = try BuiltProgram.run("notes-example", arguments, in: directory)
        #expect(result.exited, "notes-example died of signal \(result.status)")
        return result
    }
}
