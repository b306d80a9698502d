import Foundation
import ZIPFoundation

// zipfoundation-open ARCHIVE
//
// Opens ARCHIVE as an app using ZIPFoundation would to show a document's
// members, `Archive(url:accessMode: .read)`, and lists every entry (path,
// size, kind), the peer of opening the zip as a FileWrapper. Prints
// `SECONDS PEAK_KIB ENTRIES`: the time of opening and listing, the peak
// resident set size of this process (`VmHWM` from /proc/self/status) and
// the entries listed.

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1 else {
    FileHandle.standardError.write(Data("usage: zipfoundation-open ARCHIVE\n".utf8))
    exit(2)
}

/// The peak resident set size of this process so far, in KiB.
func peakKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
}

do {
    let start = ContinuousClock.now
    let archive = try Archive(url: URL(fileURLWithPath: arguments.first!), accessMode: .read)
    var entries = 0
    var listed = 0
    for entry in archive {
        entries += 1
        // What a listing shows: the path, the size and the kind.
        listed += entry.path.utf8.count + Int(entry.uncompressedSize % 2) + (entry.type == .directory ? 1 : 0)
    }
    let elapsed = (ContinuousClock.now - start).components
    print(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, peakKiB(), entries)
    withExtendedLifetime((archive, listed)) {}
} catch {
    FileHandle.standardError.write(Data("zipfoundation-open: \(error)\n".utf8))
    exit(1)
}
