import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Damaged serialized file wrappers (Apple's flat RTFD) give nil, never a
/// crash, a stack overflow or an allocation that a declared size asks for:
/// cut at every offset (inside a run of 64 or more key or data bytes that
/// holds no field, at its middle only), and lies at every structural field
/// that the Python reader of the layout document lists, read by `fwk-test-child read-serialized` in a process
/// held to 2 GiB of address space (``CorpusTests/run(_:environment:sanitized:seconds:memoryLimit:)``).
@Suite(.startsProcesses) struct FlatRTFDHostileInputTests {
    /// Two blobs: a directory of every structure (nested, a page-aligned
    /// file, a link, an empty folder, a unique key, the name keys) and a
    /// top-level file.
    static func blobs() throws -> [Data] {
        var random = SplitMix64(seed: 3535)
        let tree = FileWrapper(directoryWithFileWrappers: [
            "sub": FileWrapper(directoryWithFileWrappers: ["inner.txt": FileWrapper(regularFileWithContents: Data("inner".utf8))]),
            "page.bin": FileWrapper(regularFileWithContents: Data(random.bytes(5000))),
            "link": FileWrapper(symbolicLinkWithDestination: "sub/inner.txt"),
            "empty": FileWrapper(directoryWithFileWrappers: [:]),
        ])
        tree.addRegularFile(withContents: Data("again".utf8), preferredFilename: "link")
        tree.preferredFilename = "Hostile.package"
        let leaf = FileWrapper(regularFileWithContents: Data("alone".utf8))
        leaf.preferredFilename = "alone.txt"
        return [try #require(tree.serializedRepresentation), try #require(leaf.serializedRepresentation)]
    }

    /// A blob of dictionaries nested `depth` deep, each holding the next under "d".
    static func nested(_ depth: Int) -> Data {
        func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var bytes = Array("rtfd".utf8) + [0, 0, 0, 0]
        for _ in 0..<depth { bytes += u32(3) + u32(1) + u32(1) + [UInt8(ascii: "d")] + u32(0) }
        bytes += u32(3) + u32(0)
        return Data(bytes)
    }

    @Test func truncationsAndLyingSizesGiveNil() throws {
        var inputs: [(data: Data, expect: String, what: String)] = []
        for (index, blob) in try Self.blobs().enumerated() {
            let directory = try TemporaryDirectory("\(#function)-\(index)")
            let path = directory.appending("blob").path
            try blob.write(to: URL(fileURLWithPath: path))
            let reading = try FlatRTFDPythonReader.read(path)
            inputs.append((blob, "intact", "blob \(index)"))

            // Every cut, but inside long runs of bytes that hold no field, one.
            let fieldOffsets = Set(reading.fields.map(\.offset))
            let quiet = reading.payloads.filter { range in range.count >= 64 && !fieldOffsets.contains { range.contains($0) } }
            for cut in 0..<blob.count where !quiet.contains(where: { ($0.lowerBound + 1)..<$0.upperBound ~= cut && cut != $0.lowerBound + $0.count / 2 }) {
                inputs.append((blob.prefix(cut), "nil", "blob \(index) cut to \(cut) bytes"))
            }
            for (offset, role) in reading.fields {
                let remaining = UInt32(blob.count - offset - 4)
                let lies: [UInt32]
                let expect: String
                switch role.replacingOccurrences(of: "info-", with: "") {
                case "count", "size", "pad", "marker": (lies, expect) = ([remaining + 1, 0x7FFF_FFFF, 0x8000_0001, 0xFFFF_FFFF], "nil")
                case "tag": (lies, expect) = ([0, 2, 4, 0xFFFF_FFFF], "nil")
                case "kind": (lies, expect) = ([5], "nil")
                case "length": (lies, expect) = ([0, 0xFFFF_FFFF], "intact")  // read, not used: Apple's rule
                default: continue  // times, modes, the leaf flag: values, not structure
                }
                for lie in lies {
                    var lying = blob
                    lying.replaceSubrange(offset..<(offset + 4), with: (0..<4).map { UInt8(truncatingIfNeeded: lie >> (8 * $0)) })
                    inputs.append((lying, expect, "blob \(index): \(role) at \(offset) = \(lie)"))
                }
            }
        }
        // No recursion: nesting is no danger, and the deepest tree reads.
        inputs.append((Self.nested(100_000), "tree", "dictionaries 100,000 deep"))
        var cut = Self.nested(100_000)
        cut.removeLast()
        inputs.append((cut, "nil", "dictionaries 100,000 deep, cut"))

        let directory = try TemporaryDirectory()
        var framed = Data()
        for input in inputs {
            framed += (0..<8).map { UInt8(truncatingIfNeeded: input.data.count >> (8 * $0)) }
            framed += input.data
        }
        let list = directory.appending("inputs")
        try framed.write(to: list)
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        let outcome = try CorpusTests.run([child, "read-serialized", list.path], memoryLimit: 2 << 30)
        #expect(outcome.status == 0 && !outcome.signaled, "\(outcome.error)")
        let lines = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").map(String.init)
        try #require(lines.count == inputs.count, "\(lines.count) of \(inputs.count) inputs read")

        var intact: [String: String] = [:]
        var wrong: [String] = []
        for (input, line) in zip(inputs, lines) {
            let blob = String(input.what.prefix(6))
            switch input.expect {
            case "intact" where input.what == blob:
                intact[blob] = line
                if !line.hasPrefix("tree") { wrong.append("\(input.what): \(line)") }
            case "intact": if line != intact[blob] { wrong.append("\(input.what): \(line), not as intact") }
            case "tree": if !line.hasPrefix("tree") { wrong.append("\(input.what): \(line)") }
            default: if line != "nil" { wrong.append("\(input.what): \(line)") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of \(inputs.count):\n\(wrong.prefix(20).joined(separator: "\n"))")
        #expect(inputs.count > 1000)
    }
}
