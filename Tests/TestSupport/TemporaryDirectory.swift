import Foundation

/// A fresh directory for one test, removed when the test ends, so that
/// tests run in parallel without sharing files.
public final class TemporaryDirectory {
    public let url: URL

    public init(_ name: String = #function) throws {
        let safeName = name.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("fwk-tests", isDirectory: true)
            .appendingPathComponent("\(safeName)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // `rm -rf` copes with any depth and with read-only directories.
        let remover = Process()
        remover.executableURL = URL(fileURLWithPath: "/bin/chmod")
        remover.arguments = ["-R", "u+rwx", url.path]
        try? remover.run()
        remover.waitUntilExit()
        let rm = Process()
        rm.executableURL = URL(fileURLWithPath: "/bin/rm")
        rm.arguments = ["-rf", url.path]
        try? rm.run()
        rm.waitUntilExit()
    }

    public func appending(_ path: String) -> URL {
        url.appendingPathComponent(path)
    }
}
