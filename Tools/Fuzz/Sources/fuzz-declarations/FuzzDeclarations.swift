import FileWrapperDocument
import Foundation

/// One libFuzzer input: the bytes as a declarations file (property list,
/// XML or binary, or JSON). Any input must give declarations or a
/// `UTTypeDeclarationError`; a crash, hang or leak is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? UTTypeDeclarations(data: Data(bytes: start, count: size), source: "fuzz")
    return 0
}
