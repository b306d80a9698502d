import Foundation

/// The calling thread's I/O counters (`/proc/thread-self/io`), which tests
/// running in parallel on other threads do not move.
public enum ThreadIO {
    /// Bytes read through `read(2)` and its relatives so far (`rchar`).
    public static func bytesRead() throws -> Int { try counter("rchar") }

    /// What `body` returns, and the bytes this thread read while it ran
    /// (``bytesRead()`` before and after it).
    public static func bytesRead<Result>(during body: () throws -> Result) throws -> (result: Result, bytes: Int) {
        let before = try bytesRead()
        let result = try body()
        return (result, try bytesRead() - before)
    }

    /// Read calls so far (`syscr`; a `copy_file_range` call counts one).
    public static func readCalls() throws -> Int { try counter("syscr") }

    private static func counter(_ name: String) throws -> Int {
        let path = "/proc/thread-self/io"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            if let value = Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)) { return value }
        }
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path])
    }
}
