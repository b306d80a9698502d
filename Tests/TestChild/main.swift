// A child process for the tests: runs one operation so that a test can kill
// it midway, run it under another user or time zone, or bound its memory.
//
//   fwk-test-child save SOURCE DESTINATION         read SOURCE, save it atomically over DESTINATION
//   fwk-test-child read PATH                       read PATH and every file's contents
//   fwk-test-child pack FORMAT SOURCE ARCHIVE [--reproducible]
//                                                  pack the bundle SOURCE into ARCHIVE (FORMAT: an extension such as tar.gz)
//   fwk-test-child unpack ARCHIVE DESTINATION [--force] [--count-resources]
//                                                  unpack ARCHIVE into DESTINATION, replacing it with --force;
//                                                  print open descriptors and threads before and after
//   fwk-test-child read-archive READER ARCHIVE     read ARCHIVE and every file's contents with one reader:
//                                                  entries (ArchiveEntries), manifest (Manifest; prints its entries
//                                                  and the bytes they take), tree (ArchiveReader)
//   fwk-test-child read-each LIST AREA [--stored] [--seconds=N]
//                                                  read each archive LIST names as wrapinspect dump and unpack (into
//                                                  AREA/N/out) read it, or with --stored as dump --stored --all-formats;
//                                                  a line of JSON before and after each step (ReadEach.swift)
//   fwk-test-child edit-zip ZIP MEMBER SOURCE      make MEMBER of ZIP hold the file SOURCE's bytes (ZipArchiveEditor), the
//                                                  other members copied as stored
//   fwk-test-child save-document SOURCE DOCUMENT [--pause-before-saving]
//                                                  open DOCUMENT (a package, or a zip container if it ends in .zip)
//                                                  with DocumentController, make its files SOURCE's, save it in place;
//                                                  with --pause-before-saving, print "opened" and wait for a line of input first
//   fwk-test-child save-while-threads-block DOCUMENT
//                                                  save a new text document as DOCUMENT while a task per core blocks
//   fwk-test-child append-lines DOCUMENT WRITER EDITS [--controllers=N]
//                                                  append EDITS lines to the shared lines document DOCUMENT, one a save,
//                                                  with N controllers; a refused save met by revert (SharedLines.swift)
//   fwk-test-child read-serialized INPUTS          read each blob of INPUTS with FileWrapper(serializedRepresentation:),
//                                                  a line for each: nil or the tree's hash (ReadSerialized.swift)
//
// With --fault=CALL:N:WHAT, the N-th call of CALL through the library's
// system-call funnel fails with WHAT (an errno name such as ENOSPC, EIO,
// EINTR) or, with WHAT = kill, the process is killed there (FaultInjection);
// with --fault=CALL:N+:WHAT, the N-th call and every one after.
//
// With --close-creation-gate-after=SECONDS, a thread closes the process's
// CreationGate that many seconds after the command starts, as wrapinspect's
// signal handler does: every name made after that fails with ECANCELED.
//
// With --announce-start, every command first prints "started" and a newline
// on standard output, so that a test can time (and kill) the operation
// itself rather than the process's start. With --peak-memory, every command
// ends by printing "peak-memory N" on standard output, N the process's peak
// resident memory in KiB (`VmHWM`), whether it failed or not.
//
// Exits 0 on success; on error prints the error on standard error and exits 2.
import FileWrapperKit
import Foundation

let commands: [String: (arguments: Int, usage: String, run: (_ arguments: [String], _ flags: Set<String>) async throws -> Void)] = [
    "save": (2, "save SOURCE DESTINATION", save),
    "read": (1, "read PATH", read),
    "pack": (3, "pack FORMAT SOURCE ARCHIVE [--reproducible] [--deferred]", pack),
    "unpack": (2, "unpack ARCHIVE DESTINATION [--force] [--count-resources]", unpack),
    "read-archive": (2, "read-archive entries|manifest|tree ARCHIVE", readArchive),
    "read-each": (2, "read-each LIST AREA [--stored] [--seconds=N]", readEach),
    "edit-zip": (3, "edit-zip ZIP MEMBER SOURCE [--deferred]", editZip),
    "save-document": (2, "save-document SOURCE DOCUMENT [--pause-before-saving]", saveDocument),
    "save-while-threads-block": (1, "save-while-threads-block DOCUMENT", saveWhileThreadsBlock),
    "append-lines": (3, "append-lines DOCUMENT WRITER EDITS [--controllers=N]", appendLines),
    "read-serialized": (1, "read-serialized INPUTS", readSerialized),
]

var arguments = Array(CommandLine.arguments.dropFirst())
let flags = Set(arguments.filter { $0.hasPrefix("--") })
arguments.removeAll { $0.hasPrefix("--") }
guard let name = arguments.first, let command = commands[name], arguments.count - 1 == command.arguments else {
    let usage = commands.keys.sorted().map { "fwk-test-child " + commands[$0]!.usage }.joined(separator: "\n")
    FileHandle.standardError.write(Data("usage:\n\(usage)\n".utf8))
    exit(2)
}
if let fault = flags.first(where: { $0.hasPrefix("--fault=") }) {
    guard let plan = FaultInjection.Plan(String(fault.dropFirst("--fault=".count))) else {
        FileHandle.standardError.write(Data("unknown fault \(fault); want --fault=CALL:N:ERRNO or --fault=CALL:N:kill\n".utf8))
        exit(2)
    }
    FaultInjection.arm(plan)
}
if let gate = flags.first(where: { $0.hasPrefix("--close-creation-gate-after=") }) {
    guard let seconds = Double(gate.dropFirst("--close-creation-gate-after=".count)) else {
        FileHandle.standardError.write(Data("unknown delay in \(gate)\n".utf8))
        exit(2)
    }
    Thread.detachNewThread {
        usleep(useconds_t(seconds * 1_000_000))
        CreationGate.close()
    }
}
if flags.contains("--announce-start") {
    FileHandle.standardOutput.write(Data("started\n".utf8))
}
do {
    try await command.run(Array(arguments.dropFirst()), flags)
    reportPeakMemory(flags)
} catch {
    // FileWrapper's Foundation methods throw a CocoaError around the detail.
    let detail: any Error = (error as? CocoaError)?.fileWrapperError ?? error
    FileHandle.standardError.write(Data("\(detail)\n".utf8))
    reportPeakMemory(flags)
    exit(2)
}

/// With `--peak-memory`, prints `peak-memory N`: `VmHWM` from
/// `/proc/self/status`, the most resident memory this process has had, in
/// KiB. The process's own: a test cannot learn it from `getrusage`, whose
/// `ru_maxrss` a child inherits from its parent through `exec`.
func reportPeakMemory(_ flags: Set<String>) {
    guard flags.contains("--peak-memory"), let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return }
    let kibibytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "?"
    FileHandle.standardOutput.write(Data("peak-memory \(kibibytes)\n".utf8))
}
