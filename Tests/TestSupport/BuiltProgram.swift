import Foundation

/// What a run of a built program printed and how it ended.
public struct CommandResult: Sendable {
    public var status: Int32
    /// Whether the process exited (rather than dying of a signal).
    public var exited: Bool
    public var stdout: String
    public var stderr: String
    /// Standard output byte for byte, for checks that must not compare
    /// canonically equivalent spellings as equal.
    public var stdoutBytes: [UInt8]

    /// Standard output's lines, without their newlines.
    public var stdoutLines: [Substring] {
        var lines = stdout.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// Runs a program that `swift build` put in the products directory (such
/// as `wrapinspect`), as a user would: a child process with its own
/// arguments and working directory, standard output and error captured.
/// In the manner of swift-argument-parser's `AssertExecuteCommand`.
public enum BuiltProgram {
    public struct NotFound: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `name arguments...` in `directory` and waits for it, with
    /// `environment` added to the test process's own (``ChildProcess``).
    public static func run(
        _ name: String, _ arguments: [String], in directory: URL, environment: [String: String] = [:]
    ) throws -> CommandResult {
        try ChildProcess.run(try path(of: name), arguments, in: directory, environment: environment.mapValues { Optional($0) })
    }

    private static func path(of name: String) throws -> String {
        guard let executable = url(of: name) else {
            throw NotFound(description: "no \(name) beside the test bundle; looked in \(candidateDirectories.map(\.path))")
        }
        return executable.path
    }

    /// The built program `name`: the first candidate directory that holds it.
    public static func url(of name: String) -> URL? {
        candidateDirectories
            .map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Where the products directory may be. On Linux the test bundle is an
    /// executable in the products directory itself (`.build/debug/
    /// FileWrapperKitPackageTests.xctest`), which `/proc/self/exe`,
    /// `Bundle.main` and `argv[0]` all point at; on macOS it is a bundle
    /// (`.xctest/Contents/MacOS/...`) whose parent is the products directory.
    static let candidateDirectories: [URL] = {
        var starts: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        starts.append(Bundle.main.bundleURL)
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent())
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        // Each start, then each one level up, and so on to three levels up
        // (out of .xctest/Contents/MacOS): nearest first.
        var directories: [URL] = []
        var level = starts.map(\.standardizedFileURL)
        for _ in 0..<4 {
            for directory in level where !directories.contains(directory) {
                directories.append(directory)
            }
            level = level.map { $0.deletingLastPathComponent() }
        }
        return directories
    }()
}
