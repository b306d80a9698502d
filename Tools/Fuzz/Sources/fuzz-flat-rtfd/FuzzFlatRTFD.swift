import FileWrapperKit
import Foundation

/// One libFuzzer input: the bytes as a serialized file wrapper (Apple's
/// flat RTFD, or the tar that earlier versions wrote). nil is fine; a
/// crash, hang or leak is a finding. A tree that reads and serializes
/// again must be a fixed point: its serialization reads back, and
/// serializes to the same bytes (a trap otherwise).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let read = FileWrapper(serializedRepresentation: Data(bytes: start, count: size)),
          let written = read.serializedRepresentation
    else { return 0 }
    guard let again = FileWrapper(serializedRepresentation: written) else {
        fatalError("what we serialized does not read back")
    }
    guard again.serializedRepresentation == written else {
        fatalError("what we serialized, read back, serializes to other bytes")
    }
    return 0
}
