import BenchSupport
import Foundation

// archive-bench: wrapinspect against GNU tar, bsdtar, Info-ZIP, ZIPFoundation,
// `cp -a` and sha256sum on the workloads of gen.py, with bundle-bench's
// figures. See `archive-bench --help` and docs/performance.md.

do {
    let options = try Options(parsing: Array(CommandLine.arguments.dropFirst()))
    try runBenchmark(options.common) { work in try Benchmark(options: options, work: work).run() }
} catch {
    log("\(error)")
    exit(2)
}
