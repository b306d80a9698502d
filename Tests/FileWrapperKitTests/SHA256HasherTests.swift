import CSHA256
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Our SHA-256: the published examples, every length around the block
/// boundaries against Python's hashlib, any split of the input, and the
/// SHA instructions against the portable code block by block.
@Suite(.startsProcesses) struct SHA256HasherTests {
    /// The digest of `bytes` fed in pieces of the given lengths (the rest last).
    static func digest(of bytes: [UInt8], splitAt lengths: [Int] = []) -> SHA256Digest {
        var hasher = SHA256Hasher()
        var start = 0
        for length in lengths + [bytes.count] {
            let end = min(start + length, bytes.count)
            hasher.update(Array(bytes[start..<end]))
            start = end
        }
        return hasher.finalize()
    }

    /// The examples of FIPS 180-4 and the NIST test vectors.
    @Test func knownAnswers() {
        let examples: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
             "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        ]
        for (text, hex) in examples {
            #expect(SHA256Digest.of(Array(text.utf8)).hex == hex, "\(text)")
        }
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Self.digest(of: million, splitAt: [1, 63, 64, 1000, 4096]).hex
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Every length from 0 to 300 bytes (where the padding takes one block
    /// or two), then some around larger block counts, each against Python.
    @Test func everyLengthMatchesPython() throws {
        let directory = try TemporaryDirectory()
        var generator = SplitMix64(seed: 45)
        let lengths = Array(0...300) + [511, 512, 513, 4095, 4096, 4097, 65_536 + 55, 1 << 20]
        var inputs: [[UInt8]] = []
        for (index, length) in lengths.enumerated() {
            let bytes = generator.bytes(length)
            try Data(bytes).write(to: directory.appending("\(index)"))
            inputs.append(bytes)
        }
        let script = """
            import hashlib, sys, os
            d = sys.argv[1]
            with open(os.path.join(d, "digests"), "w") as out:
                for i in range(int(sys.argv[2])):
                    out.write(hashlib.sha256(open(os.path.join(d, str(i)), "rb").read()).hexdigest() + "\\n")
            """
        let result = try Disk.run("/usr/bin/env", ["python3", "-c", script, directory.url.path, "\(inputs.count)"])
        try #require(result.status == 0, "\(result.stderr)")
        let expected = try String(contentsOf: directory.appending("digests"), encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(expected.count == inputs.count)
        for (index, bytes) in inputs.enumerated() {
            #expect(SHA256Digest.of(bytes).hex == expected[index], "\(bytes.count) bytes")
            // The same bytes in random pieces, some empty, some across block ends.
            let pieces = (0..<4).map { _ in Int.random(in: 0...130, using: &generator) }
            #expect(Self.digest(of: bytes, splitAt: pieces).hex == expected[index], "\(bytes.count) bytes in pieces of \(pieces)")
        }
    }

    /// Blocks compressed with the SHA instructions give the state the
    /// portable code gives, from random states. On a processor without the
    /// instructions the accelerated call refuses and changes nothing.
    @Test func theSHAInstructionsAgreeWithThePortableCode() {
        var generator = SplitMix64(seed: 76)
        for blocks in [1, 2, 3, 7, 16] {
            let data = generator.bytes(64 * blocks)
            let start = (0..<8).map { _ in UInt32.random(in: 0...UInt32.max, using: &generator) }
            var portable = start
            var accelerated = start
            csha256_compress_portable(&portable, data, blocks)
            if csha256_compress_accelerated(&accelerated, data, blocks) {
                #expect(accelerated == portable, "\(blocks) blocks")
            } else {
                #expect(accelerated == start)
            }
            #expect(portable != start)
        }
    }
}
