import Foundation

/// Apple's flat RTFD (shared/formats/flat-rtfd.md) built field by field,
/// in the order given, lengths right: for blobs that our writer would
/// never write (Apple's key order, hostile keys, cut or lying fields).
public enum FlatRTFDBytes {
    /// `value`, little-endian.
    public static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    /// A size and the bytes.
    public static func sized(_ bytes: [UInt8]) -> [UInt8] { u32(UInt32(bytes.count)) + bytes }
    /// A data object (tag 1).
    public static func data(_ bytes: [UInt8]) -> [UInt8] { u32(1) + sized(bytes) }
    /// A tagged dictionary, entries in the order given, lengths right.
    public static func dictionary(_ entries: [([UInt8], [UInt8])]) -> [UInt8] {
        u32(3) + u32(UInt32(entries.count)) + entries.flatMap { sized($0.0) } + entries.flatMap { u32(UInt32($0.1.count)) }
            + entries.flatMap(\.1)
    }
    /// A directory info: a data object holding an untagged stream of
    /// (key, [mtime, mode, kind, leaf]).
    public static func info(_ entries: [([UInt8], [UInt32])]) -> [UInt8] {
        data(u32(UInt32(entries.count)) + entries.flatMap { sized($0.0) } + entries.flatMap { _ in u32(16) } + entries.flatMap { $0.1.flatMap(u32) })
    }
    /// The header and a top dictionary of `entries`.
    public static func blob(_ entries: [(String, [UInt8])]) -> Data {
        Data(Array("rtfd".utf8) + [0, 0, 0, 0] + dictionary(entries.map { (Array($0.0.utf8), $0.1) }))
    }

    /// The contents of `TXT.rtf` in ``annotatedSample()``: 356 bytes of RTF.
    public static let sampleRTF = Array("{\\rtf1\\ansi ".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 356 - 13) + [UInt8(ascii: "}")]

    /// The layout document's annotated sample (`kmjs-kmExample1`), as
    /// Apple wrote it: one RTF file, mode 0666, dated 1753498387, no
    /// preferred name, its keys in hash order (`TXT.rtf` before `.`).
    public static func annotatedSample() -> [UInt8] {
        var bytes: [UInt8] = Array("rtfd".utf8) + [0, 0, 0, 0]
        bytes += u32(3) + u32(2)
        bytes += u32(7) + Array("TXT.rtf".utf8) + u32(1) + Array(".".utf8)
        bytes += u32(364) + u32(43)
        bytes += u32(1) + u32(356) + sampleRTF
        bytes += u32(1) + u32(35)
        bytes += u32(1) + u32(7) + Array("TXT.rtf".utf8) + u32(16)
        bytes += [0x13, 0x43, 0x84, 0x68, 0xB6, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        return bytes
    }
}
