import BenchSupport
import Foundation

// bundle-bench: FileWrapperKit against `cp -a` and against itself, on the
// workloads of gen.py. See `bundle-bench --help` and docs/performance.md.

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == OpenChild.subcommand {
        try OpenChild.run(Array(arguments.dropFirst()))
        exit(0)
    }
    let options = try Options(parsing: arguments)
    try runBenchmark(options.common) { work in try Benchmark(options: options, work: work).run() }
} catch {
    log("\(error)")
    exit(2)
}
