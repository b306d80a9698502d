/// One fuzz input read as a program: an archive format and a list of
/// entries whose paths and link targets are built from a small alphabet of
/// name atoms chosen to collide: canonically equivalent spellings (U+212A
/// KELVIN SIGN and `K`, NFC and NFD), case, `.`/`..`/empty names and long
/// names and chains. Entries can reuse an earlier entry's folder or path,
/// as it is or respelled with another member of its atoms' classes, so the
/// collisions that matter are a few mutations away (``ProgramMutator``
/// inserts such entries whole). Missing bytes read as zero, so every
/// input decodes.
struct UnpackProgram {
    enum Format: CaseIterable {
        case paxTar, gnuTar, zip
    }

    enum Kind: CaseIterable {
        case directory, file, symlink, hardLink
    }

    struct Entry {
        var kind: Kind
        var atoms: [Int]
        var path: [UInt8]
        var target: [UInt8]
        var mode: UInt32
        var modified: Int
        var contents: [UInt8]
    }

    var format: Format
    /// Whether the unpack replaces an existing destination (one holding
    /// symlinks that lead out: ``Surroundings/makeOldDestination()``).
    var replacesExisting: Bool
    /// Whether a zip marks its names as UTF-8 (general purpose flag bit 11).
    var zipNamesAreUTF8: Bool
    var entries: [Entry] = []
    /// Where each entry lies in the input (``ProgramMutator`` moves them).
    var spans: [Range<Int>] = []

    /// Names that entries' paths and targets are made of; an atom may hold
    /// slashes (a chain). The first 14 are picked by one byte, the rest by
    /// the slots 14 and 15 and a second byte.
    static let atoms: [[UInt8]] = [
        "K", "\u{212A}", "k", "caf\u{E9}", "cafe\u{301}", "\u{C5}", "\u{212B}", "A\u{30A}",
        ".", "..", "", "a", "b", "victim",
    ].map { Array($0.utf8) } + extras
    static let directSlots = 14
    static let extras: [[UInt8]] = {
        let long: [String] = [
            String(repeating: "a", count: 255), String(repeating: "\u{212A}", count: 85), String(repeating: "b", count: 256),
            [String](repeating: "a", count: 40).joined(separator: "/"), [String](repeating: "..", count: 9).joined(separator: "/"),
            [String](repeating: ".", count: 9).joined(separator: "/"),
        ]
        let short: [String] = ["p", "w", "dest", "CAF\u{C9}", "\u{E5}", "s", "K\u{212A}k", "x/..", "\u{212A}/..", "a//b"]
        return (long + short).map { Array($0.utf8) } + [[0xFF], [0xC3]]
    }()

    /// Atoms that are one name to `String ==` or to a case-folding eye:
    /// a variant of an atom is another member of its class.
    /// (`K`, KELVIN SIGN, `k`; NFC, NFD, upper case `café`; `Å` as U+00C5,
    /// ANGSTROM SIGN, NFD, lower case.)
    static let classes: [[Int]] = [[0, 1, 2], [3, 4, 23], [5, 6, 7, 24]]

    static let modes: [UInt32] = [
        0o755, 0o644, 0, 0o777, 0o4755, 0o2755, 0o1777, 0o700, 0o500, 0o555, 0o7777, 0o600, 0o111, 0o200, 0o022, 0o6711,
    ]
    static let times = [1_767_225_600, 0, 8_589_934_591, 123_456_789]

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = Decoder(bytes: bytes)
        let header = input.byte()
        format = Format.allCases[Int(header & 0x3F) % 3]
        replacesExisting = header & 0x40 != 0
        zipNamesAreUTF8 = header & 0x80 == 0
        let count = Int(input.byte() % 17)
        for _ in 0..<count {
            guard input.position < bytes.count else { break }
            let start = input.position
            entries.append(entry(&input))
            spans.append(start..<min(input.position, bytes.count))
        }
    }

    /// One entry: kind and flags, path, mode and time, then its target or contents.
    private func entry(_ input: inout Decoder) -> Entry {
        let flags = input.byte()
        let kind = Kind.allCases[Int(flags & 3)]
        let atoms = path(&input)
        var path = Self.bytes(atoms)
        if flags >> 2 & 7 == 7 { path.insert(UInt8(ascii: "/"), at: 0) }
        if flags & 0x20 != 0 { path.append(UInt8(ascii: "/")) }
        let times = input.byte()
        var entry = Entry(kind: kind, atoms: atoms, path: path, target: [], mode: Self.modes[Int(times & 15)],
                          modified: Self.times[Int(times >> 4 & 3)], contents: [])
        switch kind {
        case .symlink, .hardLink: entry.target = target(&input)
        case .file:
            for _ in 0..<(input.byte() & 3) { entry.contents.append(input.byte()) }
        case .directory: break
        }
        return entry
    }

    /// A path's atoms: fresh ones, or below an earlier entry's folder or
    /// path, as it is or respelled.
    private func path(_ input: inout Decoder) -> [Int] {
        let operation = input.byte()
        let fresh = Int(operation >> 2 & 7)
        guard operation & 3 != 0, let earlier = earlier(&input) else { return atoms(&input, count: fresh) }
        let base: [Int]
        switch operation & 3 {
        case 1: base = Array(earlier.atoms.dropLast())
        case 2: base = Self.variant(Array(earlier.atoms.dropLast()), Int(operation >> 5))
        default: base = Self.variant(earlier.atoms, Int(operation >> 5))
        }
        return base + atoms(&input, count: 1 + fresh % 3)
    }

    /// A link target: fresh atoms (`..` more often than in paths, rarely
    /// absolute), an earlier entry's name followed by fresh atoms (`s/..`),
    /// or `..` climbs followed by an earlier entry's path, as it is or
    /// respelled.
    private func target(_ input: inout Decoder) -> [UInt8] {
        let operation = input.byte()
        let count = Int(operation >> 2 & 7)
        if operation & 3 == 0 || entries.isEmpty { return Self.bytes(atoms(&input, count: count, inTarget: true)) }
        if operation == 0xFF { return [UInt8(ascii: "/")] + Self.bytes(atoms(&input, count: 2, inTarget: true)) }
        let earlier = earlier(&input)!
        switch operation & 3 {
        case 1: return Self.bytes(earlier.atoms.suffix(1) + atoms(&input, count: count % 4, inTarget: true))
        case 2: return Self.bytes(Array(repeating: 9, count: count % 4) + earlier.atoms)
        default: return Self.bytes(Array(repeating: 9, count: count % 4) + Self.variant(earlier.atoms, Int(operation >> 5)))
        }
    }

    /// An earlier entry, counted back from this one (0: the one before).
    private func earlier(_ input: inout Decoder) -> Entry? {
        entries.isEmpty ? nil : entries[entries.count - 1 - Int(input.byte()) % entries.count]
    }

    /// `count` atoms, a byte each (two for the extras); in a target, slot 14
    /// is one more `..`.
    private func atoms(_ input: inout Decoder, count: Int, inTarget: Bool = false) -> [Int] {
        (0..<count).map { _ in
            let slot = Int(input.byte() % 16)
            if slot < Self.directSlots { return slot }
            if inTarget && slot == 14 { return 9 }
            return Self.directSlots + Int(input.byte()) % Self.extras.count
        }
    }

    /// `atoms` with each that has a class replaced by another member of it,
    /// chosen by `choice`.
    static func variant(_ atoms: [Int], _ choice: Int) -> [Int] {
        atoms.map { atom in
            guard let members = classes.first(where: { $0.contains(atom) }) else { return atom }
            let index = members.firstIndex(of: atom)!
            return members[(index + 1 + choice % (members.count - 1)) % members.count]
        }
    }

    static func bytes(_ atoms: [Int]) -> [UInt8] {
        Array(atoms.map { Self.atoms[$0] }.joined(separator: [UInt8(ascii: "/")]))
    }

    /// The program as text, names escaped, for a finding's report.
    var description: String {
        var lines = ["\(format)\(format == .zip && !zipNamesAreUTF8 ? " (names not marked UTF-8)" : "")\(replacesExisting ? ", replacing dest" : ""), \(entries.count) entries:"]
        for entry in entries {
            var line = "  \(entry.kind) \"\(Self.escaped(entry.path))\" mode \(String(entry.mode, radix: 8)) time \(entry.modified)"
            if entry.kind == .symlink || entry.kind == .hardLink { line += " -> \"\(Self.escaped(entry.target))\"" }
            if entry.kind == .file { line += " contents \(entry.contents)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// Bytes as text: ASCII as it is (long runs shortened), the rest as
    /// `\u{...}` or `\xNN`.
    static func escaped(_ bytes: [UInt8]) -> String {
        let decoded = String(decoding: bytes, as: UTF8.self)
        let text = decoded.utf8.elementsEqual(bytes)
            ? decoded.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16, uppercase: true))}" }.joined()
            : bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16, uppercase: true) }.joined()
        return text.count > 120 ? "\(text.prefix(60))...(\(text.count) characters)...\(text.suffix(20))" : text
    }

    /// Reads the input a byte at a time.
    struct Decoder {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func byte() -> UInt8 {
            defer { position += 1 }
            return position < bytes.count ? bytes[position] : 0
        }
    }
}
