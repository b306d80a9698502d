import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc

/// `read-each LIST AREA [--stored] [--seconds=N]`: reads each archive that
/// LIST names (one path a line) in this one process, as `wrapinspect dump
/// PATH` and `wrapinspect unpack PATH AREA/N/out` read it (N counts the
/// lines from 0; AREA/N must exist), or, with `--stored`, as `wrapinspect
/// dump --stored --all-formats --json PATH` does: the library's calls
/// behind those commands, with the same options and limits. For a run
/// under a sanitizer, where every process start costs most of a second,
/// CorpusTests reads many files in one process this way rather than two
/// processes a file.
///
/// Before each step it prints `{"file":N,"step":"dump"}` (or `unpack`,
/// `stored`), and after it `{"file":N,"step":...,"status":0|2,"seconds":S,"error":...}`,
/// each line written at once, so that whoever reads the output knows which
/// file a crash stopped at. Each step gets N seconds (`--seconds`, default
/// 30) of `alarm`: a step that takes longer ends the process with SIGALRM
/// (unblocked first, since a process inherits its parent's signal mask).
func readEach(_ arguments: [String], _ flags: Set<String>) throws {
    // A child inherits its signal mask, and the test's threads block SIGALRM.
    var alarmSignal = sigset_t()
    sigemptyset(&alarmSignal)
    sigaddset(&alarmSignal, SIGALRM)
    pthread_sigmask(SIG_UNBLOCK, &alarmSignal, nil)
    signal(SIGALRM, SIG_DFL)
    let seconds = flags.first { $0.hasPrefix("--seconds=") }.flatMap { UInt32($0.dropFirst("--seconds=".count)) } ?? 30
    let list = try String(contentsOfFile: arguments[0], encoding: .utf8).split(separator: "\n").map(String.init)
    let area = URL(fileURLWithPath: arguments[1])
    let steps: [(name: String, run: (URL, URL) throws -> Void)] = flags.contains("--stored")
        ? [("stored", { archive, _ in try listStored(archive) })]
        : [("dump", { archive, _ in try dump(archive) }),
           ("unpack", { archive, destination in try ArchiveUnpacker.unpack(archiveAt: archive, to: destination) })]
    for (index, path) in list.enumerated() {
        let archive = URL(fileURLWithPath: path)
        let destination = area.appendingPathComponent(String(index)).appendingPathComponent("out")
        for step in steps {
            try printLine(["file": index, "step": step.name])
            let started = Date()
            alarm(seconds)
            var error: String?
            do {
                try step.run(archive, destination)
            } catch let thrown {
                let detail: any Error = (thrown as? CocoaError)?.fileWrapperError ?? thrown
                // libarchive's messages may end in a newline, which wrapinspect leaves out.
                error = ((detail as? LocalizedError)?.errorDescription ?? String(describing: detail))
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            alarm(0)
            try printLine(["file": index, "step": step.name, "status": error == nil ? 0 : 2,
                           "seconds": Date().timeIntervalSince(started), "error": error ?? ""])
        }
    }
}

/// What `wrapinspect dump PATH` reads: the manifest within the reading
/// limits, contents not hashed, then written out as JSON.
private func dump(_ archive: URL) throws {
    var options = ManifestReadOptions(hashingContents: false)
    options.keepsUnreadable = true
    _ = try Manifest(reading: archive, options: options).encoded(as: .json)
}

/// What `wrapinspect dump --stored --all-formats --json PATH` reads: every
/// entry as stored, in every format libarchive reads, contents skipped.
private func listStored(_ archive: URL) throws {
    try ArchiveEntries.forEach(in: archive, formats: .all, limits: .reading, checkingContents: false) { entry, _ in
        _ = ManifestEntry(entry).encodedAsJSON()
    }
}

/// Writes `object` as one line of JSON on standard output, unbuffered.
private func printLine(_ object: [String: Any]) throws {
    FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) + Data("\n".utf8))
}
