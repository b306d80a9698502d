import Benchmark
import Foundation

extension BenchmarkMetric {
    /// Bytes processed a second, in MB (10^6 bytes): package-benchmark's
    /// own throughput counts iterations.
    public static let megabytesPerSecond = BenchmarkMetric.custom("MB/s", polarity: .prefersLarger, useScalingFactor: false)
}

extension Benchmark.Configuration {
    /// The suite's settings: time, memory and allocations, one warm-up
    /// iteration, then at most `maxIterations` or 3 seconds, so that the
    /// whole suite runs in a few minutes on 2 cores. `measuresBytes` adds
    /// ``BenchmarkMetric/megabytesPerSecond``.
    public static func microbenchmark(maxIterations: Int = 25, measuresBytes: Bool = false) -> Self {
        let metrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident]
        return .init(
            metrics: metrics + (measuresBytes ? [.megabytesPerSecond] : []), units: [.megabytesPerSecond: .count],
            warmupIterations: 1, maxDuration: .seconds(3), maxIterations: maxIterations)
    }
}

extension Benchmark {
    /// Registers a benchmark whose fixture `prepare` generates in a scratch
    /// directory before the first iteration; the directory is removed after
    /// the last.
    @discardableResult
    public static func withFixture<Fixture>(
        _ name: String, configuration: Configuration, prepare: @escaping (URL) throws -> Fixture,
        run: @escaping (Benchmark, Fixture) throws -> Void
    ) -> Benchmark? {
        let scratch = ScratchDirectory()
        return Benchmark(name, configuration: configuration, closure: run, setup: { try prepare(scratch.make()) }, teardown: { try scratch.remove() })
    }

    /// Runs `body`, which processes `byteCount` bytes, and records its rate
    /// as ``BenchmarkMetric/megabytesPerSecond``.
    public func measuringBytes(_ byteCount: Int, _ body: () throws -> Void) rethrows {
        let start = ContinuousClock.now
        try body()
        let elapsed = start.duration(to: .now) / .nanoseconds(1)
        measurement(.megabytesPerSecond, Int(Double(byteCount) * 1e3 / elapsed))
    }
}
