import Glibc

/// Judges, before deflating, whether bytes are better stored: the zip
/// writer's choice for a whole file (from samples across it) and a deflate
/// worker's for each chunk of a deflated file. The rule is the same for
/// both: deflate at level 1 saves less than 2 % of samples, each deflated
/// on its own. Random and already compressed data is stored at the cost of
/// one fast pass over the samples instead of deflated to no gain at
/// deflate's slowest; text and other redundant data save far more.
final class StoreJudge {
    /// How a chunk is sampled by ``storesBetter(chunk:)``: `chunkSamples`
    /// pieces of `sampleLength`, the first at its start, the last at its
    /// end (an eighth of a zip writer's chunk of 128 KiB), or the whole
    /// chunk when it is not longer than they are together.
    static let chunkSamples = 4
    static let sampleLength = 4 << 10
    /// The least entropy, in bits a byte, of a chunk's samples together
    /// for them to be deflated on trial: below it, Huffman codes alone
    /// save more than 2 % (1 - 7.8 / 8 = 2.5 %), so the chunk is deflated
    /// without one. Random samples of 16 KiB measure 7.99.
    static let randomEntropy = 7.8

    private let sampler: RawDeflater
    /// Where samples are deflated, grown to the longest one.
    private var room = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// A judge with a level-1 stream of its own; nil when zlib cannot allocate one.
    init?() {
        guard let sampler = RawDeflater(level: 1) else { return nil }
        self.sampler = sampler
    }

    deinit {
        room.deallocate()
    }

    /// Whether deflate at level 1 saves less than 2 % of `samples`, each
    /// deflated on its own (a sample that does not shrink counts whole).
    func savesLittle(_ samples: [UnsafeRawBufferPointer]) -> Bool {
        let sampled = samples.reduce(0) { $0 + $1.count }
        guard sampled > 0 else { return false }
        let longest = samples.map(\.count).max()!
        if room.count < longest {
            room.deallocate()
            room = .allocate(byteCount: longest, alignment: 16)
        }
        let space = UnsafeMutableRawBufferPointer(rebasing: room[..<longest])
        var deflated = 0
        for sample in samples {
            deflated += sampler.compress(sample, dictionary: UnsafeRawBufferPointer(start: nil, count: 0), into: space, ending: .finish)
                ?? sample.count
        }
        return deflated > sampled - sampled / 50
    }

    /// Whether a chunk of a deflated file is better stored, judged from
    /// ``chunkSamples`` samples across it: only samples whose bytes look
    /// random together (``randomEntropy``) are deflated on trial, so that
    /// a chunk of text costs a byte count of its samples and no more. What
    /// it answers depends on the chunk's bytes alone.
    func storesBetter(chunk: UnsafeRawBufferPointer) -> Bool {
        let samples: [UnsafeRawBufferPointer]
        if chunk.count <= Self.chunkSamples * Self.sampleLength {
            samples = [chunk]
        } else {
            let last = chunk.count - Self.sampleLength
            samples = (0..<Self.chunkSamples).map { index in
                let start = last * index / (Self.chunkSamples - 1)
                return UnsafeRawBufferPointer(rebasing: chunk[start..<start + Self.sampleLength])
            }
        }
        return Self.entropy(of: samples) >= Self.randomEntropy && savesLittle(samples)
    }

    /// The entropy of the bytes of `samples` together, in bits a byte
    /// (order 0: each byte's frequency, not its neighbours).
    static func entropy(of samples: [UnsafeRawBufferPointer]) -> Double {
        var counts = [Int](repeating: 0, count: 256)
        var total = 0
        counts.withUnsafeMutableBufferPointer { counts in
            for sample in samples {
                for byte in sample { counts[Int(byte)] += 1 }
                total += sample.count
            }
        }
        guard total > 0 else { return 0 }
        var sum = 0.0
        for count in counts where count > 0 {
            sum += Double(count) * log2(Double(count))
        }
        return log2(Double(total)) - sum / Double(total)
    }
}
