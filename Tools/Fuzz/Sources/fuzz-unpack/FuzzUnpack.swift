import FileWrapperArchive
import Foundation
import Glibc

/// The tree around the destination, made at the first input.
nonisolated(unsafe) let surroundings = Surroundings()
/// With `FUZZ_UNPACK_PRINT` set, each program is printed before it runs
/// (to read a corpus file or a finding: `fuzz-unpack FILE`); with
/// `FUZZ_UNPACK_SAVE=PATH`, its archive is also written to PATH (to make
/// a finding a fixture of `FuzzRegressionTests`).
let printsPrograms = getenv("FUZZ_UNPACK_PRINT") != nil
let savePath = getenv("FUZZ_UNPACK_SAVE").map { Array(String(cString: $0).utf8) }

/// One libFuzzer input: a program of entries (``UnpackProgram``) written as
/// a tar or zip by our own writer (``ProgramArchive``), unpacked by
/// `ArchiveUnpacker` into `dest` inside ``Surroundings``. Refusals are
/// fine. A trap (so a finding) when:
/// - anything outside `dest` changed: a sentinel's bytes, mode, links,
///   times, or a new or missing name, the unpack's temporary included;
/// - a symlink under `dest` leads out of it (``DestinationCheck``), a file
///   there is one outside, or a mode keeps bits the unpacker drops;
/// - the unpack threw something other than an `ArchiveError`, or `dest`
///   exists after a refusal, or not after a success;
/// - with `replacesExisting`, the destination there before (symlinks that
///   lead out, ``Surroundings/makeOldDestination()``) is changed by a
///   refusal, or written into rather than replaced.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let program = UnpackProgram(UnsafeBufferPointer(start: start, count: size))
    if printsPrograms { print(program.description) }
    let archive = ProgramArchive.bytes(program)
    write(archive, to: surroundings.archive)
    if let savePath { write(archive, to: savePath) }

    let oldDestination = program.replacesExisting ? surroundings.makeOldDestination() : nil
    var refusal: Error?
    do {
        try ArchiveUnpacker.unpack(archiveAt: URL(fileURLWithPath: String(decoding: surroundings.archive, as: UTF8.self)),
                                   to: URL(fileURLWithPath: String(decoding: surroundings.destination, as: UTF8.self)),
                                   options: ArchiveUnpackOptions(replacesExisting: program.replacesExisting))
    } catch {
        refusal = error
    }
    let destination = RawPath.status(surroundings.destination)
    // After a refusal, a destination that was there is as it was, and none is made.
    let kept = refusal != nil && oldDestination != nil
    var problem = surroundings.change(destinationExists: destination != nil)
    if problem == nil, let refusal, !(refusal is ArchiveError) { problem = "the unpack threw \(type(of: refusal)): \(refusal)" }
    if problem == nil, (destination != nil) != (refusal == nil || kept) {
        problem = refusal.map { "dest exists after a refusal: \($0)" } ?? "dest does not exist after a success"
    }
    if problem == nil, kept, destination?.st_ino != oldDestination
        || Set(RawPath.names(in: surroundings.destination) ?? []) != Surroundings.oldNames {
        problem = "the destination to be replaced changed, and the unpack was refused"
    }
    if problem == nil, refusal == nil, let oldDestination, destination?.st_ino == oldDestination {
        problem = "the destination was not replaced: the unpack wrote into it"
    }
    if problem == nil, destination != nil, !kept {
        problem = DestinationCheck.problem(in: surroundings.destination, outsideInodes: surroundings.inodes)
    }
    if let problem { fatalError("\(problem)\n\(program.description)\nrefusal: \(refusal.map { "\($0)" } ?? "none")") }
    Surroundings.removeTree(Array("dest".utf8), in: surroundings.parent)
    return 0
}

func write(_ bytes: [UInt8], to path: [UInt8]) {
    let fd = RawPath.withCString(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
    guard fd >= 0, Glibc.write(fd, bytes, bytes.count) == bytes.count, close(fd) == 0 else {
        fatalError("cannot write \(UnpackProgram.escaped(path))")
    }
}
