import FileWrapperKit
import Foundation

/// `read-serialized INPUTS`: reads each blob of the file INPUTS (each an
/// 8-byte little-endian length, then that many bytes) with
/// `FileWrapper(serializedRepresentation:)`, in this one process, and
/// prints a line for each: `nil`, or `tree` and a 64-bit FNV-1a hash of
/// what was read, each line as soon as it is known (every wrapper's key bytes, kind, permissions, whole-second
/// time, contents or target, in key-byte order), so that a test can tell
/// whether a damaged blob read as the intact one.
func readSerialized(_ arguments: [String], _ flags: Set<String>) throws {
    let inputs = try Data(contentsOf: URL(fileURLWithPath: arguments[0]))
    var offset = inputs.startIndex
    while offset + 8 <= inputs.endIndex {
        let length = inputs[offset..<(offset + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
        let blob = inputs.subdata(in: (offset + 8)..<(offset + 8 + length))
        offset += 8 + length
        if let wrapper = FileWrapper(serializedRepresentation: blob) {
            var hash = FNV1a()
            describe(wrapper, into: &hash)
            FileHandle.standardOutput.write(Data("tree \(String(hash.value, radix: 16))\n".utf8))
        } else {
            FileHandle.standardOutput.write(Data("nil\n".utf8))
        }
    }
}

private struct FNV1a {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
        value = (value ^ 0xff) &* 0x100_0000_01b3
    }
}

/// Depth first, with a stack rather than recursion: a blob may nest deeper than a stack goes.
private func describe(_ root: FileWrapper, into hash: inout FNV1a) {
    var pending: [(key: [UInt8], wrapper: FileWrapper)] = [([], root)]
    while let (key, wrapper) = pending.popLast() {
        hash.add(key)
        hash.add(Array("\(wrapper.attributes.permissions ?? 0) \(wrapper.attributes.modificationDate?.seconds ?? -1)".utf8))
        if wrapper.isDirectory {
            hash.add(Array("directory".utf8))
            let children = wrapper.fileWrappers!.map { (key: Array($0.key.utf8), wrapper: $0.value) }
            pending += children.sorted { $1.key.lexicographicallyPrecedes($0.key) }
        } else if let target = wrapper.symbolicLinkDestinationBytes {
            hash.add(Array("link".utf8) + target)
        } else {
            hash.add(Array("file".utf8))
            hash.add(wrapper.regularFileContents ?? Data())
        }
    }
}
