import ArgumentParser
import FileWrapperArchive
import FileWrapperKit
import Foundation

/// The `wrapinspect` command line: a root that dispatches to one
/// subcommand per file (`Dump.swift`, ...).
///
/// Exit status: 0 success or the same, 1 different (`diff`, `verify`),
/// 2 trouble (an error, refused input or bad usage).
struct WrapInspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wrapinspect",
        abstract: "Inspect, compare, pack and unpack document packages: bundles, flat files, archives and manifests.",
        version: "wrapinspect \(version)\ninflate: \(ArchiveLibrary.inflater)",
        subcommands: [Dump.self, Snapshot.self, Digest.self, Diff.self, Verify.self, Cat.self, Pack.self, Unpack.self, Versions.self]
    )

    /// What `--version` prints; raised with each release.
    static let version = "0.1.0"

    /// The exit status for errors and for bad usage.
    static let troubleStatus: Int32 = 2

    /// Parses the arguments and runs the command, like ArgumentParser's own
    /// `main()`, but exits with status 2 (not 64 or 1) for bad usage and for
    /// errors, and prints errors as `wrapinspect: <description>`.
    static func main() {
        readTimeZoneOnce()
        Interruption.install()
        // A reader that goes away is an EPIPE to handle (temporaries
        // removed, exit 2), not a signal that kills the process midway.
        signal(SIGPIPE, SIG_IGN)
        refuseUnknownCommand()
        do {
            var command = try parseAsRoot()
            try command.run()
            Interruption.finishing()
            try StandardOutput.flush()
        } catch {
            exit(for: error)
        }
    }

    /// Exits 2 with "did you mean" when the first argument, not an option,
    /// names no subcommand.
    private static func refuseUnknownCommand() {
        guard let message = unknownCommandMessage(CommandLine.arguments.dropFirst()) else { return }
        printError(message)
        Foundation.exit(troubleStatus)
    }

    /// What bad usage prints when the first of `arguments` (the program's
    /// name left out), not an option, names no subcommand: the "did you
    /// mean" of ``CommandSuggestion`` and the usage. Nil otherwise.
    static func unknownCommandMessage(_ arguments: some Collection<String>) -> String? {
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard let first = arguments.first, !first.hasPrefix("-"), !names.contains(first) else { return nil }
        return CommandSuggestion.message(for: first, among: names) + "\nUsage: wrapinspect <subcommand>\n  See 'wrapinspect --help' for more information."
    }

    /// Names the default time zone file in `TZ` when `TZ` is unset.
    /// libarchive turns every zip entry's MS-DOS time into a Unix time with
    /// `mktime`, and glibc's `mktime`, with `TZ` unset, checks
    /// `/etc/localtime` with a `stat` at each call (41,000 of them to read
    /// w1's zip). Named, the same file is read once. Set before any thread
    /// starts: `setenv` is not safe beside other threads.
    private static func readTimeZoneOnce() {
        if getenv("TZ") == nil {
            setenv("TZ", ":/etc/localtime", 0)
        }
    }

    /// Exits for an error from parsing or running. Help requests (`--help`,
    /// `help dump`) print to standard output and exit 0; an `ExitCode`
    /// exits with its code; bad usage prints the message and the usage on
    /// standard error; any other error prints its description. Both exit 2.
    private static func exit(for error: Error) -> Never {
        Interruption.finishing()
        var error = error
        do {
            try StandardOutput.flush()
        } catch let failure {
            // Output that could not be written outranks a difference found.
            if error is ExitCode || exitCode(for: error) == .success { error = failure }
        }
        if let failure = error as? StandardOutputError, failure.isClosedPipe {
            Foundation.exit(troubleStatus)
        }
        let code = exitCode(for: error)
        if code == .success || error is ExitCode {
            exit(withError: error)
        }
        printError(code == .validationFailure ? badUsageText(for: error) : describe(error))
        Foundation.exit(troubleStatus)
    }

    /// What bad usage prints: the message, then the usage of the command
    /// it concerns (ArgumentParser's full message is "Error: <message>\n"
    /// then the usage: the usage is kept, without the "Error: ").
    static func badUsageText(for error: Error) -> String {
        let message = message(for: error)
        let full = fullMessage(for: error)
        guard let range = full.range(of: message + "\n") else { return message }
        return message + "\n" + full[range.upperBound...]
    }

    /// The text of an error for people, the causes under it included
    /// (``ErrorChain``): an archive error names the archive, the entry, and
    /// the flag that raises a reached limit or replaces an existing
    /// destination; a manifest error the flag that raises its limit; a
    /// `FileWrapper` method's `CocoaError` says what its `FileWrapperError`
    /// says (the path and the system call).
    static func describe(_ error: Error) -> String {
        ErrorChain(error).description { error in
            if let error = error as? ArchiveError {
                let description = error.description(limitHint: { "(raise it with \(Unpack.flag(for: $0)))" },
                                                    optionHint: { "(\(Unpack.flag(for: $0)) keeps such links, never following them during the unpack)" })
                return error.code == .destinationExists ? description + " (unpack into a new folder, or replace it whole with --force)" : description
            }
            if let error = error as? ManifestError {
                return error.description { "(raise it with \(Unpack.flag(for: ArchiveReadLimits.Limit($0))))" }
            }
            return nil
        }
    }
}

/// The entry point of the `wrapinspect` program: its commands live in this
/// library so that their parsing and help are tested in process.
public enum WrapInspectProgram {
    /// Parses the process's arguments, runs the command and exits with its
    /// status (0 same or done, 1 different, 2 trouble).
    public static func main() {
        WrapInspect.main()
    }
}
