// `import os` on Linux: `Logger` as Apple's os module declares it, each
// message written as one line to standard error (Apple's unified log has
// no counterpart here; a service's standard error is what its supervisor
// keeps), in the layout of `log stream --style compact`.
import Foundation

/// A logger for one subsystem and category, as `os.Logger`.
public struct Logger: Sendable {
    private let scope: String

    /// Messages labelled `[subsystem:category]`.
    public init(subsystem: String, category: String) {
        scope = "[\(subsystem):\(category)] "
    }

    /// Messages without a subsystem, as Apple's default logger writes them.
    public init() {
        scope = ""
    }

    /// Writes `message` at `level` to standard error.
    public func log(level: OSLogType, _ message: OSLogMessage) {
        StandardErrorLog.write(level: level, scope: scope, text: message.text)
    }

    /// Writes `message` at the default level.
    public func log(_ message: OSLogMessage) { log(level: .default, message) }

    /// Apple's `trace` is `debug`.
    public func trace(_ message: OSLogMessage) { log(level: .debug, message) }
    public func debug(_ message: OSLogMessage) { log(level: .debug, message) }
    public func info(_ message: OSLogMessage) { log(level: .info, message) }
    /// Apple's `notice` is the default level.
    public func notice(_ message: OSLogMessage) { log(level: .default, message) }
    /// Apple's `warning` is `error`.
    public func warning(_ message: OSLogMessage) { log(level: .error, message) }
    public func error(_ message: OSLogMessage) { log(level: .error, message) }
    public func fault(_ message: OSLogMessage) { log(level: .fault, message) }
    /// Apple's `critical` is `fault`.
    public func critical(_ message: OSLogMessage) { log(level: .fault, message) }
}

/// A message's level, with Apple's raw values.
public struct OSLogType: RawRepresentable, Equatable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let `default` = OSLogType(rawValue: 0x00)
    public static let info = OSLogType(rawValue: 0x01)
    public static let debug = OSLogType(rawValue: 0x02)
    public static let error = OSLogType(rawValue: 0x10)
    public static let fault = OSLogType(rawValue: 0x11)

    /// The type column of `log stream --style compact`.
    var compactName: String {
        switch self {
        case .info: "I "
        case .debug: "Db"
        case .error: "E "
        case .fault: "F "
        default: "Df"
        }
    }
}

/// Writes whole lines to standard error.
enum StandardErrorLog {
    /// `2026-12-02 01:24:14.123 Df program[pid] [subsystem:category] text`,
    /// the time local, in one `write(2)` so that lines from several threads
    /// do not interleave.
    static func write(level: OSLogType, scope: String, text: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var local = tm()
        var seconds = now.tv_sec
        localtime_r(&seconds, &local)
        let time = String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", Int(local.tm_year) + 1900, Int(local.tm_mon) + 1,
            Int(local.tm_mday), Int(local.tm_hour), Int(local.tm_min), Int(local.tm_sec), now.tv_nsec / 1_000_000)
        let line = Array("\(time) \(level.compactName) \(program)[\(getpid())] \(scope)\(text)\n".utf8)
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    private static let program = ProcessInfo.processInfo.processName
}
