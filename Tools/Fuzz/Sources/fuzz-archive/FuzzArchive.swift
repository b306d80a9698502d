import FileWrapperArchive
import FileWrapperKit
import Foundation

/// Small limits, so that one input costs little time and memory, and the
/// default (standard) formats.
let limits = ArchiveReadLimits(maxEntries: 10_000, maxBytes: 64 << 20)

/// One libFuzzer input: the bytes as an archive, read into a FileWrapper and
/// into a manifest. Errors are fine; a crash, hang or leak is a finding, and
/// so is a broken invariant (a trap here):
/// - the FileWrapper reader is the stricter of the two (it also refuses
///   names that are not UTF-8 and device nodes), so when it accepts an
///   archive, the manifest reader accepts it too;
/// - then both describe one tree: the manifest of the FileWrapper has the
///   archive manifest's tree digest.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let data = Data(bytes: start, count: size)
    let manifest = Result { try Manifest(archiveData: data, name: "fuzz", limits: limits) }
    guard let wrapper = try? ArchiveReader.fileWrapper(from: data, name: "fuzz", limits: limits) else { return 0 }
    let archived: Manifest
    switch manifest {
    case .success(let value): archived = value
    case .failure(let error): fatalError("the FileWrapper reader accepted the archive, the manifest reader refused it: \(error)")
    }
    let read: Manifest
    do {
        read = try Manifest(wrapper, name: "fuzz")
    } catch {
        fatalError("no manifest of the FileWrapper read from the archive: \(error)")
    }
    guard read.treeDigest == archived.treeDigest else {
        fatalError("tree digests differ: FileWrapper \(read.treeDigestText ?? "none"), archive \(archived.treeDigestText ?? "none")")
    }
    return 0
}
