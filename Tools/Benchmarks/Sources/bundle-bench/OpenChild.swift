import BenchSupport
import FileWrapperKit
import Foundation

/// The hidden subcommand `measure-open PATH [--immediate] [--without-mapping]`:
/// opens a package, touches every wrapper's attributes (not its contents)
/// and prints `BASELINE_KIB PEAK_KIB`, the peak resident set size before
/// opening and after the walk.
enum OpenChild {
    static let subcommand = "measure-open"

    static func run(_ arguments: [String]) throws {
        var options: FileWrapper.ReadingOptions = []
        var path: String?
        for argument in arguments {
            switch argument {
            case "--immediate": options.insert(.immediate)
            case "--without-mapping": options.insert(.withoutMapping)
            default: path = argument
            }
        }
        guard let path else { throw BenchError("\(subcommand) needs a path") }

        let baseline = try peakKiB()
        let root = try FileWrapper(url: URL(fileURLWithPath: path), options: options)
        var entries = 0
        var attributes = 0
        var pending = [root]
        while let wrapper = pending.popLast() {
            entries += 1
            attributes += wrapper.fileAttributes.count
            if wrapper.isDirectory {
                pending.append(contentsOf: wrapper.fileWrappers!.values)
            }
        }
        precondition(attributes >= 2 * entries)
        print(baseline, try peakKiB())
        withExtendedLifetime(root) {}
    }

    /// The peak resident set size of this process's address space so far,
    /// in KiB: `VmHWM` from `/proc/self/status`. Not `getrusage`'s
    /// `ru_maxrss`, which a child inherits from its parent (the address space
    /// it had until `execve`), so it would report the parent's size.
    static func peakKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Int(line.split(separator: " ")[1])
        else { throw BenchError("no VmHWM in /proc/self/status") }
        return kib
    }
}
