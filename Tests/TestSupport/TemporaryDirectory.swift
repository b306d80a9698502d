import Foundation
import Glibc

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
        Self.removeTree(at: url.path)
    }

    public func appending(_ path: String) -> URL {
        url.appendingPathComponent(path)
    }
}
