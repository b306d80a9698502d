@testable import FileWrapperArchive
import Foundation
import Glibc

/// Where each input is written: our tar reader reads files.
let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-plain-tar-\(getpid()).tar")

/// One libFuzzer input: the bytes as a tar file, with the checksum of each
/// header made right (else nearly every mutation ends at the first
/// checksum), read by our plain tar reader and by libarchive. Our reader may
/// leave any input to libarchive (`PlainTarReader.Unsupported`), but it must
/// throw nothing else, and when it reads an input to its end, libarchive
/// must read the same entries, header and bytes alike. A break of either is
/// a trap, so a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: start, count: size))
    fixChecksums(&bytes)
    guard (try? Data(bytes).write(to: path)) != nil else { fatalError("cannot write \(path.path)") }
    guard let reader = PlainTarReader.opening(path, formats: .standard) else { return 0 }
    let ours: [Entry]
    do {
        ours = try entries(reader)
    } catch is PlainTarReader.Unsupported {
        return 0
    } catch {
        fatalError("our reader threw something other than Unsupported: \(error)")
    }
    let libarchive: [Entry]
    do {
        libarchive = try entries(ArchiveReadHandle.reading(path, formats: .standard))
    } catch {
        fatalError("our reader read \(ours.count) entries, libarchive refused the archive: \(error)")
    }
    guard ours == libarchive else {
        fatalError("the readers differ:\n ours \(ours.map(\.header))\n libarchive \(libarchive.map(\.header))")
    }
    return 0
}

/// An entry's header fields, as text, and its contents.
struct Entry: Equatable {
    var header: String
    var contents: [UInt8]
}

/// Each entry, in archive order.
func entries(_ stream: some ArchiveEntryStream) throws -> [Entry] {
    var entries: [Entry] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while let header = try stream.nextHeader() {
        var contents: [UInt8] = []
        while true {
            let count = try buffer.withUnsafeMutableBytes { try stream.readData(into: $0, entry: "") }
            if count == 0 { break }
            contents += buffer[..<count]
        }
        entries.append(Entry(header: """
            \(header.path ?? "-") type \(header.type) mode \(header.permissions) time \(header.modified) set \(header.modifiedIsSet) \
            owner \(header.owner) symlink \(header.symlinkTarget ?? []) hardlink \(header.hardlinkTarget ?? "-") \
            bytes \(header.pathBytes ?? []) \(header.hardlinkBytes ?? []) size \(header.size ?? -1) encrypted \(header.isEncrypted)
            """, contents: contents))
    }
    return entries
}

/// Writes the right checksum into each header block, going from one to the
/// next by the size field's octal digits, until a zero block or the end.
func fixChecksums(_ bytes: inout [UInt8]) {
    var offset = 0
    while offset + 512 <= bytes.count, bytes[offset..<(offset + 512)].contains(where: { $0 != 0 }) {
        var sum = 8 * Int(UInt8(ascii: " "))
        for index in offset..<(offset + 512) where !(148..<156).contains(index - offset) { sum += Int(bytes[index]) }
        let digits = Array(String(sum, radix: 8).utf8)
        let field = Array(repeating: UInt8(ascii: "0"), count: max(0, 6 - digits.count)) + digits.suffix(6) + [0, UInt8(ascii: " ")]
        bytes.replaceSubrange((offset + 148)..<(offset + 156), with: field)
        var size = 0
        for byte in bytes[(offset + 124)..<(offset + 136)] where (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(byte) {
            size = min(size * 8 + Int(byte - UInt8(ascii: "0")), 1 << 40)
        }
        offset += 512 + (size + 511) / 512 * 512
    }
}
