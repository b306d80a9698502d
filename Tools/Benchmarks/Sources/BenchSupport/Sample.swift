/// What the kernel accounted for one child process, and how long the
/// `sync` after it took (the writeback it left behind).
package struct Sample {
    package var seconds: Double
    package var userSeconds: Double
    package var systemSeconds: Double
    package var peakKiB: Double
    package var syncSeconds = 0.0

    package init(seconds: Double, userSeconds: Double, systemSeconds: Double, peakKiB: Double, syncSeconds: Double = 0) {
        (self.seconds, self.userSeconds, self.systemSeconds, self.peakKiB, self.syncSeconds) = (seconds, userSeconds, systemSeconds, peakKiB, syncSeconds)
    }

    /// The median of each figure on its own.
    package static func median(of samples: [Sample]) -> Sample {
        func middle(_ figure: KeyPath<Sample, Double>) -> Double {
            BenchSupport.median(samples.map { $0[keyPath: figure] })
        }
        return Sample(seconds: middle(\.seconds), userSeconds: middle(\.userSeconds), systemSeconds: middle(\.systemSeconds),
                      peakKiB: middle(\.peakKiB), syncSeconds: middle(\.syncSeconds))
    }
}

/// The middle value, or the mean of the two middle ones.
package func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
