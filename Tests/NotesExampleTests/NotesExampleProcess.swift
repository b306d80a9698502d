import Foundation
import Testing

/// Runs the `notes-example` that `swift build` put beside the test bundle,
/// as a user would: a child process in a working directory, its output
/// captured. The same approach as WrapInspectTests' `WrapInspectProcess`.
enum NotesExampleProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `notes-example arguments...` in `directory` and waits for it.
    static func run(_ arguments: [String], in directory: URL) throws -> Result {
        let executable = try #require(executableURL, "no notes-example beside the test bundle; looked in \(candidateDirectories.map(\.path))")
        // Output goes to files, not pipes: a full pipe cannot block the child.
        let stdoutURL = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        let stderrURL = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: stdoutURL)
            try? FileManager.default.removeItem(at: stderrURL)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        process.waitUntilExit()
        try stdout.close()
        try stderr.close()
        #expect(process.terminationReason == .exit, "notes-example died of signal \(process.terminationStatus)")
        return Result(
            status: process.terminationStatus,
            stdout: try String(contentsOf: stdoutURL, encoding: .utf8),
            stderr: try String(contentsOf: stderrURL, encoding: .utf8))
    }

    static let executableURL: URL? = candidateDirectories
        .map { $0.appendingPathComponent("notes-example") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// The products directory holds the test bundle on Linux (an executable
    /// that `/proc/self/exe` names) and is the bundle's parent on macOS
    /// (`.xctest/Contents/MacOS/...`, three levels down).
    static let candidateDirectories: [URL] = {
        var start = Bundle.main.bundleURL
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            start = URL(fileURLWithPath: exe).deletingLastPathComponent()
        }
        return (0..<4).map { level in
            (0..<level).reduce(start.standardizedFileURL) { url, _ in url.deletingLastPathComponent() }
        }
    }()
}
