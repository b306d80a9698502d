import FileWrapperArchive
import Foundation
import Testing
import TestSupport

/// Helpers for the interop tests: running other programs, our own
/// unpacking, trees to pack and how to compare them.
enum Interop {
    /// What a program printed and how it ended.
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// A program that exited with a status other than 0, or was killed.
    struct ToolFailure: Error, CustomStringConvertible {
        var command: [String]
        var output: Output
        var killed = false

        var description: String {
            let ending = killed ? "was killed by signal \(output.status)" : "exited with status \(output.status)"
            let hint = output.status == 127 ? " (not installed? `make test` installs it: Tools/ensure-system-packages.sh --test)" : ""
            return "`\(command.joined(separator: " "))` \(ending)\(hint)\n\(output.stderr)\(output.stdout)"
        }
    }

    /// Runs `program`, found through `PATH`, in `directory` as a user would:
    /// in a UTF-8 locale and with umask 022, whatever the test runner's
    /// locale and umask (``ChildProcess``). Throws ``ToolFailure`` unless
    /// the program exits with status 0.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], in directory: URL) throws -> Output {
        let result = try ChildProcess.run(
            "/bin/sh", ["-c", "umask 022 && exec \"$0\" \"$@\"", program] + arguments, in: directory, environment: ["LC_ALL": "C.UTF-8"])
        let output = Output(status: result.status, stdout: result.stdout, stderr: result.stderr)
        guard result.exited, output.status == 0 else {
            throw ToolFailure(command: [program] + arguments, output: output, killed: !result.exited)
        }
        return output
    }

    /// Unpacks `archive` with this library into `destination`, which must
    /// not exist yet: the one place the interop tests unpack with ours.
    static func unpackWithOurs(_ archive: URL, into destination: URL) throws {
        try ArchiveUnpacker.unpack(archiveAt: archive, to: destination)
    }

    /// Records one issue that lists `lines` under `heading` (which tool,
    /// which format), unless there are none.
    static func expectNothing(_ lines: [String], _ heading: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard !lines.isEmpty else { return }
        Issue.record("\(heading):\n\(lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }

    /// Runs `body`; if it throws, records an issue that starts with
    /// `context` (which tool, which format) and `step`, and returns `nil`.
    static func attempt<T>(
        _ context: String, _ step: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
    ) -> T? {
        do {
            return try body()
        } catch {
            Issue.record("\(context): \(step) failed: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }
}
