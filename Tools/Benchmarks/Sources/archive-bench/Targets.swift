import BenchSupport
import Foundation

/// The targets of issue 6, judged on what one run measured. A target
/// whose workload or format was not measured is left out.
struct Targets {
    let results: Results

    /// Peak memory that no operation of ours may pass, and by how much w2's
    /// may pass w3's ("the same on w2 as on w3": streaming, no whole-file buffers).
    static let peakLimitKiB = 32.0 * 1024
    static let peakGrowthLimitKiB = 2.0 * 1024

    var all: [TargetResult] {
        var targets = speed("pack .tar", .tar, .pack(.ours), limits: [(.w1, 1.0)])
        targets += speed("pack .tar.zst", .tarZstd, .pack(.ours), limits: [(.w2, 0.6), (.w1, 0.6)])
        targets += speed("pack .zip", .zip, .pack(.ours), limits: [(.w2, 0.5), (.w3, 0.5), (.w1, 1.0)])
        targets += zipSizes
        for suite in Suite.allCases where suite.isArchive {
            targets += speed("unpack .\(suite.rawValue)", suite, .unpack(.ours, archiveOf: .ours), limits: [(.w1, 0.7), (.w2, 1.0), (.w3, 1.0)])
        }
        targets += speed("snapshot", .snapshot, .snapshot, limits: [(.w2, 0.3), (.w1, 0.5)])
        targets += speed("pack .zip against ZIPFoundation", .zip, .pack(.ours), against: .pack(.zipFoundation), limits: [(.w1, 0.2)])
        targets += peaks
        targets += peakGrowth.map { [$0] } ?? []
        return targets
    }

    /// Our median time for `ours` in `suite` against the best peer's (or
    /// `peer`'s), on each workload of `limits` that was measured.
    private func speed(_ target: String, _ suite: Suite, _ ours: Operation, against peer: Operation? = nil,
                       limits: [(WorkloadName, Double)]) -> [TargetResult] {
        limits.compactMap { workload, limit in
            guard let group = results[workload]?[suite], let mine = group.sample(of: ours),
                  let (peerOperation, theirs) = peer.map({ peer in group.sample(of: peer).map { (peer, $0) } }) ?? group.bestPeer(for: ours)
            else { return nil }
            return TargetResult(
                target, workload: workload.rawValue, ours: Formatting.seconds(mine.seconds) + " s",
                peer: "\(peerOperation.peerName): \(Formatting.seconds(theirs.seconds)) s",
                ratio: Formatting.ratio(mine.seconds, theirs.seconds), limit: String(format: "≤ %.2f", limit),
                met: mine.seconds <= limit * theirs.seconds)
        }
    }

    /// Our zip archives at most 2 % larger than Info-ZIP's.
    private var zipSizes: [TargetResult] {
        WorkloadName.allCases.compactMap { workload in
            guard let sizes = results[workload]?[.zip]?.sizes, let ours = sizes[.ours], let theirs = sizes[.infoZip] else { return nil }
            return TargetResult(
                "pack .zip: archive size", workload: workload.rawValue, ours: Formatting.mebibytes(Double(ours)) + " MiB",
                peer: "zip: \(Formatting.mebibytes(Double(theirs))) MiB", ratio: Formatting.ratio(Double(ours), Double(theirs)),
                limit: "≤ 1.02", met: Double(ours) <= 1.02 * Double(theirs))
        }
    }

    /// Our operations on `workload`, each with its suite and median.
    private func ourOperations(on workload: WorkloadName) -> [(suite: Suite, operation: Operation, sample: Sample)] {
        Suite.allCases.flatMap { suite in
            (results[workload]?[suite]?.medians ?? []).filter(\.operation.isOurs).map { (suite, $0.operation, $0.sample) }
        }
    }

    /// The largest peak memory of our packs, unpacks and snapshots of each workload.
    private var peaks: [TargetResult] {
        WorkloadName.allCases.compactMap { workload in
            guard let largest = ourOperations(on: workload).max(by: { $0.sample.peakKiB < $1.sample.peakKiB }) else { return nil }
            return TargetResult(
                "peak RSS, every operation of ours", workload: workload.rawValue,
                ours: "\(Formatting.mebibytes(largest.sample.peakKiB * 1024)) MiB (\(largest.suite.rawValue) \(largest.operation.label))",
                limit: "≤ 32 MiB", met: largest.sample.peakKiB <= Self.peakLimitKiB)
        }
    }

    /// How much more memory an operation of ours needs on w2 (1 GiB in 8
    /// files) than on w3 (56 MiB), the operation where it grows most.
    private var peakGrowth: TargetResult? {
        let w3 = ourOperations(on: .w3)
        let growths = ourOperations(on: .w2).compactMap { suite, operation, sample in
            w3.first { $0.suite == suite && $0.operation == operation }.map { (suite, operation, sample.peakKiB, $0.sample.peakKiB) }
        }
        guard let (suite, operation, w2Peak, w3Peak) = growths.max(by: { $0.2 - $0.3 < $1.2 - $1.3 }) else { return nil }
        return TargetResult(
            "peak RSS the same on w2 as on w3", workload: "w2, w3",
            ours: String(format: "%+.1f MiB", (w2Peak - w3Peak) / 1024)
                + " (\(suite.rawValue) \(operation.label): \(Formatting.mebibytes(w2Peak * 1024)) against \(Formatting.mebibytes(w3Peak * 1024)))",
            limit: "≤ w3's + 2 MiB", met: w2Peak - w3Peak <= Self.peakGrowthLimitKiB)
    }
}
