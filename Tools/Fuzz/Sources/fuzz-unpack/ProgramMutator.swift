/// libFuzzer's byte mutations, provided by libFuzzer itself.
@_silgen_name("LLVMFuzzerMutate")
func LLVMFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

/// Mutates an input as a program half of the time, as bytes otherwise:
/// inserts one of ``ProgramMutator/shapes`` or a copy of an entry at an
/// entry's boundary, removes an entry or swaps two, and sets the count.
/// Byte mutations alone rarely add a whole entry where one starts, and an
/// attack takes several entries that refer to each other.
@_cdecl("LLVMFuzzerCustomMutator")
public func mutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    var random = ProgramMutator.Random(seed)
    guard size >= 2, random.next(2) == 0 else { return LLVMFuzzerMutate(data, size, maxSize) }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let spans = bytes.withUnsafeBufferPointer { UnpackProgram($0).spans }
    var entries = spans.map { Array(bytes[$0]) }
    // At the end half of the time: shapes refer to the entry before them.
    let position = random.next(2) == 0 ? entries.count : random.next(entries.count + 1)
    switch random.next(4) {
    case 0 where entries.count < 16: entries.insert(ProgramMutator.shapes[random.next(ProgramMutator.shapes.count)], at: position)
    case 1 where entries.count < 16 && !entries.isEmpty: entries.insert(entries[random.next(entries.count)], at: position)
    case 2 where !entries.isEmpty: entries.remove(at: random.next(entries.count))
    case 3 where entries.count >= 2: entries.swapAt(random.next(entries.count), random.next(entries.count))
    default: return LLVMFuzzerMutate(data, size, maxSize)
    }
    let program = [bytes[0], UInt8(entries.count)] + entries.joined()
    guard program.count <= maxSize else { return LLVMFuzzerMutate(data, size, maxSize) }
    data.update(from: program, count: program.count)
    return program.count
}

enum ProgramMutator {
    /// Whole entries in the program encoding (flags, path operation,
    /// earlier entry counted back, atoms, mode and time, target), each
    /// harmless alone: links up, links through the previous entry's name,
    /// entries in the previous entry's folder spelled another way (`K` and
    /// KELVIN SIGN, NFC and NFD), directories and files in `K` and KELVIN
    /// SIGN, a hard link to the previous entry, a directory of mode 0.
    /// Each shape's new name differs from those the others make, so that
    /// they combine without a duplicate: links up are `b`, links through a
    /// name are `victim`, files are `a`.
    static let shapes: [[UInt8]] = [
        [0x02, 0x01, 0x00, 0x0C, 0x00, 0x04, 0x09],        // beside the previous: b -> ..
        [0x02, 0x02, 0x00, 0x0C, 0x00, 0x04, 0x09],        // in its folder respelled: b -> ..
        [0x02, 0x22, 0x00, 0x0C, 0x00, 0x04, 0x09],        // the same, the other respelling
        [0x02, 0x01, 0x00, 0x0D, 0x00, 0x05, 0x00, 0x09],  // beside the previous: victim -> its name/..
        [0x02, 0x02, 0x00, 0x0D, 0x00, 0x05, 0x00, 0x09],  // in its folder respelled: victim -> its name/..
        [0x02, 0x22, 0x00, 0x0D, 0x00, 0x05, 0x00, 0x09],  // the same, the other respelling
        [0x02, 0x01, 0x00, 0x0D, 0x00, 0x09, 0x00, 0x09, 0x09],  // victim -> its name/../..
        [0x02, 0x04, 0x0C, 0x00, 0x06, 0x00],              // b -> ../its path
        [0x01, 0x02, 0x00, 0x0B, 0x00, 0x01, 0x78],        // file a in its folder respelled
        [0x00, 0x03, 0x00, 0x0B, 0x00],                    // directory a below its path respelled
        [0x20, 0x04, 0x00, 0x00],                          // directory K/
        [0x20, 0x04, 0x01, 0x00],                          // directory KELVIN SIGN/
        [0x01, 0x08, 0x01, 0x0B, 0x00, 0x01, 0x78],        // file KELVIN SIGN/a
        [0x03, 0x04, 0x0C, 0x00, 0x02, 0x00],              // hard link b -> its path
        [0x00, 0x04, 0x0B, 0x02],                          // directory a, mode 0
    ]

    /// xorshift32, from libFuzzer's seed.
    struct Random {
        var state: UInt32

        init(_ seed: UInt32) { state = seed == 0 ? 0x9E37_79B9 : seed }

        mutating func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return Int(state % UInt32(max(bound, 1)))
        }
    }
}
