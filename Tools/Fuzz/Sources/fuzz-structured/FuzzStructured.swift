import FileWrapperKit
import Foundation

/// One libFuzzer input: two documents (JSON, or property lists in XML or
/// binary), the first 4 bytes giving the first one's length (little
/// endian, taken modulo what follows), compared as `diff --structured`
/// compares them, within a budget of ``maxNodes`` values. Errors and
/// refusals are fine; a crash, hang, leak or memory past libFuzzer's limit
/// is a finding, and so is a broken promise of the reader:
/// - a value it returns holds no more values than the budget;
/// - a document compared with itself has no changes;
/// - two documents with no changes between them hold equal values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 4 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: size))
    let declared = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
    let rest = bytes[4...]
    let cut = 4 + declared % (rest.count + 1)
    let old = Array(bytes[4..<cut]), new = Array(bytes[cut...])

    for document in [old, new] {
        guard let (value, _) = try? StructuredValue.parse(document, maxNodes: maxNodes) else { continue }
        let count = nodes(in: value)
        guard count <= maxNodes else { fatalError("a value of \(count) nodes came back within a budget of \(maxNodes)") }
        guard case .success(let same)? = StructuredDiff.compare(old: document, new: document, maxNodes: maxNodes), same.isFormattingOnly else {
            fatalError("a document compared with itself differs, or is refused the second time")
        }
    }
    if case .success(let diff)? = StructuredDiff.compare(old: old, new: new, maxNodes: maxNodes), diff.isFormattingOnly,
       let before = try? StructuredValue.parse(old, maxNodes: maxNodes), let after = try? StructuredValue.parse(new, maxNodes: maxNodes),
       before.value != after.value {
        fatalError("no changes found between two different values")
    }
    return 0
}

/// The budget of values: small, so that an input that expands (shared
/// references in a binary property list) reaches it quickly. Under
/// AddressSanitizer and coverage a value costs about 40 µs, so 20,000
/// took seconds an input on a loaded machine and tripped -timeout.
let maxNodes = 2_000

/// How many values `value` holds, itself included.
func nodes(in value: StructuredValue) -> Int {
    switch value {
    case .object(let members): 1 + members.reduce(0) { $0 + nodes(in: $1.value) }
    case .array(let elements): 1 + elements.reduce(0) { $0 + nodes(in: $1) }
    default: 1
    }
}
